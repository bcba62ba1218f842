/**
 * Log in with an API key: traded for the session cookie (api.ts), which scripts cannot read; the key
 * itself is kept nowhere.
 */
import { useState } from 'preact/hooks';
import { ApiError, startSession } from '../api';
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
      await startSession(key.trim());
      setKey('');
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
        <code>mockingbird keys create</code> makes more. The key is kept in a cookie that no script can read,
        until you log out or close the browser.
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
