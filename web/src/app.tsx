/** The app shell: login gate, navigation bar, and which screen the path shows. */
import { useEffect, useState } from 'preact/hooks';
import { endSession, loggedIn as tabLoggedIn, setUnauthorizedHandler } from './api';
import { navigate, usePath } from './router';
import { Link } from './ui';
import { Login } from './screens/login';
import { Endpoints } from './screens/endpoints';
import { RequestLog } from './screens/log';
import { Rules } from './screens/rules';
import { Settings } from './screens/settings';
import { Totp } from './screens/totp';

function EndpointTabs(props: { ep: string; tab: string }) {
  const base = `/endpoints/${encodeURIComponent(props.ep)}`;
  const tab = (name: string, label: string) => (
    <Link href={`${base}/${name}`} class={props.tab === name ? 'tab active' : 'tab'} testid={`tab-${name}`}>
      {label}
    </Link>
  );
  return (
    <nav class="tabs">
      <h1 class="ep-title">{props.ep}</h1>
      {tab('requests', 'Requests')}
      {tab('rules', 'Rules')}
      {tab('settings', 'Settings')}
    </nav>
  );
}

export function App() {
  const path = usePath();
  const [loggedIn, setLoggedIn] = useState(tabLoggedIn());
  useEffect(() => {
    setUnauthorizedHandler(() => {
      endSession();
      setLoggedIn(false);
    });
  }, []);

  const logout = () => {
    endSession();
    setLoggedIn(false);
    navigate('/');
  };

  let screen;
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === '2fa') screen = <Totp />;
  else if (!loggedIn) screen = <Login onLogin={() => setLoggedIn(true)} />;
  else if (parts[0] === 'endpoints' && parts[1]) {
    const ep = parts[1];
    const tab = parts[2] ?? 'requests';
    screen = (
      <>
        <EndpointTabs ep={ep} tab={tab} />
        {tab === 'rules' ? (
          <Rules key={ep} ep={ep} />
        ) : tab === 'settings' ? (
          <Settings key={ep} ep={ep} />
        ) : (
          <RequestLog key={ep} ep={ep} />
        )}
      </>
    );
  } else screen = <Endpoints />;

  return (
    <div class="shell">
      <header class="top">
        <Link href="/" class="brand">
          Mockingbird
        </Link>
        {loggedIn && (
          <Link href="/" testid="nav-endpoints">
            Endpoints
          </Link>
        )}
        <Link href="/2fa" testid="nav-totp">
          TOTP
        </Link>
        <a href="/api/v2/docs">API reference</a>
        <span class="spacer" />
        {loggedIn && (
          <button type="button" class="plain" onClick={logout} data-testid="logout">
            Log out
          </button>
        )}
      </header>
      <main>{screen}</main>
    </div>
  );
}
