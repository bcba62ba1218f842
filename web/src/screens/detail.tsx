/**
 * One recorded request in full: headers, query, bodies, files, timing, "copy as curl", and how the
 * request and its answer fared against the endpoint's OpenAPI document when they were checked.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, download, enc } from '../api';
import { curlCommand } from '../curl';
import { Body } from '../json-view';
import { entryDate, entryMs, type Entry, type Rule, type Violation } from '../types';
import { CopyButton, ErrorBox } from '../ui';
import { ruleName } from './rule-names';

function HeaderTable(props: { headers: Record<string, string | string[]> | undefined }) {
  const rows = Object.entries(props.headers ?? {});
  if (rows.length === 0) return <p class="muted small">(none)</p>;
  return (
    <table class="kv">
      <tbody>
        {rows.flatMap(([k, v]) =>
          (Array.isArray(v) ? v : [v]).map((one, i) => (
            <tr key={k + i}>
              <th>{k}</th>
              <td>{one}</td>
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

/** One side's check: nothing when unchecked, "kept" when empty, else each violation. */
function Violations(props: { title: string; list: Violation[] | undefined; testid: string }) {
  if (!props.list) return null;
  return (
    <div data-testid={props.testid}>
      <strong>{props.title}</strong>{' '}
      {props.list.length === 0 ? (
        <span class="muted small">kept the contract</span>
      ) : (
        <ul class="violations-list warn">
          {props.list.map((v, i) => (
            <li key={i}>
              <span class="mono">
                {v.in}
                {v.path ? ` ${v.path}` : ''}
              </span>
              : {v.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

const header = (h: Record<string, string | string[]> | undefined, name: string): string | undefined => {
  const v = Object.entries(h ?? {}).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v[0] : v;
};

/** `rules`: the endpoint's rules as the log holds them (null while they load), to name the rule. */
export function RequestDetail(props: { ep: string; id: string; rules: Rule[] | null; onClose: () => void }) {
  const { ep, id } = props;
  const [entry, setEntry] = useState<Entry | null>(null);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    setEntry(null);
    setError(null);
    api.get<Entry>(`/endpoints/${enc(ep)}/requests/${enc(id)}`).then(setEntry, setError);
  }, [ep, id]);

  if (error)
    return (
      <aside class="card detail">
        <ErrorBox error={error} />
      </aside>
    );
  if (!entry) return <aside class="card detail muted">Loading…</aside>;

  const url = new URL(entry.path, 'http://x');
  const query = [...url.searchParams.entries()];
  const curl = curlCommand(
    `${location.origin}/e/${ep}${entry.path}`,
    entry.method,
    entry.request?.headers ?? {},
    entry.request?.body,
  );
  return (
    <aside class="card detail" data-testid="request-detail">
      <div class="detail-head">
        <h2>
          <span class={`method m-${entry.method.toLowerCase()}`}>{entry.method}</span>{' '}
          <span class="path">{entry.path}</span>
        </h2>
        <button type="button" class="plain" onClick={props.onClose} aria-label="Close">
          ✕
        </button>
      </div>
      <dl class="facts">
        <dt>Status</dt>
        <dd data-testid="detail-status">{entry.status}</dd>
        <dt>Behavior</dt>
        <dd>
          {entry.behavior}
          {entry.responseName ? ` (${entry.responseName})` : ''}
        </dd>
        <dt>Rule</dt>
        <dd data-testid="detail-rule">
          {entry.rule.matched ? (
            <>
              {ruleName(props.rules, entry.rule.ruleId).label}
              {entry.rule.ruleId && <div class="mono small muted">{entry.rule.ruleId}</div>}
            </>
          ) : (
            'none'
          )}
        </dd>
        <dt>Received</dt>
        <dd>{new Date(entryDate(entry)).toLocaleString()}</dd>
        <dt>Time taken</dt>
        <dd>{entryMs(entry)} ms</dd>
        <dt>Client</dt>
        <dd>{entry.ip}</dd>
        <dt>Id</dt>
        <dd class="mono small">{entry.id}</dd>
      </dl>
      <div class="row">
        <CopyButton text={curl} label="copy as curl" testid="copy-curl" />
      </div>
      {(entry.problems?.length ?? 0) > 0 && (
        <div class="warn">
          {entry.problems?.map((p, i) => (
            <div key={i}>{p}</div>
          ))}
        </div>
      )}
      {(entry.validation || entry.responseValidation) && (
        <section data-testid="detail-violations">
          <h3>OpenAPI contract</h3>
          <Violations title="Request" list={entry.validation} testid="request-violations" />
          <Violations title="Response" list={entry.responseValidation} testid="response-violations" />
        </section>
      )}
      <h3>Query</h3>
      {query.length === 0 ? (
        <p class="muted small">(none)</p>
      ) : (
        <table class="kv">
          <tbody>
            {query.map(([k, v], i) => (
              <tr key={i}>
                <th>{k}</th>
                <td>{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h3>Request headers</h3>
      <HeaderTable headers={entry.request?.headers} />
      <h3>Request body{entry.requestBodyTruncated ? ' (cut at the capture limit)' : ''}</h3>
      <Body text={entry.request?.body} contentType={header(entry.request?.headers, 'content-type')} />
      {(entry.files?.length ?? 0) > 0 && (
        <>
          <h3>Files</h3>
          <ul class="files">
            {entry.files?.map((f) => (
              <li key={f.name}>
                <button
                  type="button"
                  class="plain"
                  onClick={() =>
                    void download(
                      `/endpoints/${enc(ep)}/requests/${enc(entry.id)}/multipart/download?fieldName=${enc(f.name)}`,
                      f.fileName,
                    ).catch(setError)
                  }
                >
                  {f.fileName}
                </button>{' '}
                <span class="muted small">
                  {f.name} · {f.contentType} · {f.size} bytes
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
      <h3>Response headers</h3>
      <HeaderTable headers={entry.response?.headers} />
      <h3>Response body{entry.responseBodyTruncated ? ' (cut at the capture limit)' : ''}</h3>
      <Body text={entry.response?.body} contentType={header(entry.response?.headers, 'content-type')} />
      <details class="curl">
        <summary>curl</summary>
        <pre>{curl}</pre>
      </details>
    </aside>
  );
}
