/** Log in with an API key: checked against the API, kept in session storage (gone with the tab). */
import { useState } from 'preact/hooks';
import { ApiError, request, saveKey } from '../api';
import { ErrorBox } from '../ui';

export function Login(props: { onLogin: () => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (ev: Event) => {
    ev.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await request('GET', '/endpoints', undefined, key.trim());
      saveKey(key.trim());
      props.onLogin();
    } catch (e) {
      setError(e instanceof ApiError && e.status === 401 ? new Error(`Wrong API key: ${e.message}`) : e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card narrow">
      <h2>Log in</h2>
      <p class="muted">
        Paste an API key (<code>mb_…</code>). The first start printed the admin key;{' '}
        <code>mockingbird keys create</code> makes more. The key is kept in this tab only.
      </p>
      <form onSubmit={submit} class="stack">
        <label>
          API key
          <input
            name="apiKey"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
            required
          />
        </label>
        <ErrorBox error={error} />
        <div>
          <button type="submit" disabled={busy}>
            Log in
          </button>
        </div>
      </form>
    </section>
  );
}
