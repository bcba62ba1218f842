/** Endpoints: the list with request counts and URLs, create (named as the API allows), delete. */
import { useEffect, useState } from 'preact/hooks';
import { api, enc } from '../api';
import { navigate } from '../router';
import type { Endpoint } from '../types';
import { ConfirmButton, CopyButton, ErrorBox, Link } from '../ui';

/**
 * The endpoint's two URLs on the port this page was loaded from. The path form comes first: every
 * client reaches it; `<name>.localhost` only browsers and curl resolve (Node's fetch, Python and Java
 * do not).
 */
export function endpointUrls(ep: Pick<Endpoint, 'host' | 'path'>): { host: string; path: string } {
  const port = location.port ? ':' + location.port : '';
  return { host: `${location.protocol}//${ep.host}${port}/`, path: `${location.origin}${ep.path}` };
}

export function Endpoints() {
  const [list, setList] = useState<Endpoint[] | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>(null);

  const load = async () => {
    try {
      setList((await api.get<{ data: Endpoint[] }>('/endpoints')).data);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    void load();
  }, []);

  const create = async (ev: Event) => {
    ev.preventDefault();
    setError(null);
    try {
      const ep = await api.post<Endpoint>('/endpoints', { name: name.trim() });
      setName('');
      navigate(`/endpoints/${enc(ep.name)}/requests`);
    } catch (e) {
      setError(e);
    }
  };

  const remove = async (ep: string) => {
    setError(null);
    try {
      await api.del(`/endpoints/${enc(ep)}`);
      await load();
    } catch (e) {
      setError(e);
    }
  };

  return (
    <>
      <section class="card">
        <h2>New endpoint</h2>
        <form onSubmit={create} class="row">
          <input
            name="endpointName"
            placeholder="shop"
            value={name}
            spellcheck={false}
            onInput={(e) => setName(e.currentTarget.value)}
            aria-label="Endpoint name"
          />
          <button type="submit">Create</button>
        </form>
        <p class="muted small">Lower-case letters, digits and hyphens; the name becomes a sub-domain.</p>
        <ErrorBox error={error} />
      </section>
      <section class="card">
        <h2>Endpoints</h2>
        {list === null ? (
          <p class="muted">Loading…</p>
        ) : list.length === 0 ? (
          <p class="muted">No endpoints yet.</p>
        ) : (
          <table class="grid-table" data-testid="endpoints">
            <thead>
              <tr>
                <th>Name</th>
                <th>Requests</th>
                <th>URLs</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.map((ep) => {
                const urls = endpointUrls(ep);
                return (
                  <tr key={ep.name} data-testid={`endpoint-${ep.name}`}>
                    <td class="name">
                      <Link href={`/endpoints/${enc(ep.name)}/requests`}>{ep.name}</Link>
                      <div class="muted small">{ep.plan}</div>
                    </td>
                    <td class="num count">{ep.requestCount ?? '–'}</td>
                    <td class="urls">
                      <div data-testid="url-path">
                        <code>{urls.path}</code> <CopyButton text={urls.path} />
                      </div>
                      <div data-testid="url-curl">
                        <code>curl {urls.path}</code>{' '}
                        <CopyButton text={`curl ${urls.path}`} label="Copy curl" />
                      </div>
                      <div data-testid="url-host" class="muted small">
                        <code>{urls.host}</code> <CopyButton text={urls.host} /> browsers and curl resolve{' '}
                        <code>*.localhost</code>; other clients need the path form above
                      </div>
                    </td>
                    <td class="actions">
                      {!ep.builtIn && (
                        <ConfirmButton
                          label="Delete"
                          confirm={`Delete ${ep.name}, its rules and history?`}
                          onConfirm={() => void remove(ep.name)}
                          testid={`delete-${ep.name}`}
                        />
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
