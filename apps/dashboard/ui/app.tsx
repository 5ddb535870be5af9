import { useEffect, useRef, useState } from 'preact/hooks';
import { call, setCsrfToken, whenSignedOut, type Session } from './api';
import { ErrorState, Link, Loading } from './components';
import { CallsPage } from './pages/calls';
import { CampaignsPage } from './pages/campaigns';
import { AuditPage } from './pages/audit';
import { ClientsPage } from './pages/clients';
import { DeliveriesPage } from './pages/deliveries';
import { FlowsPage } from './pages/flows';
import { InboxPage } from './pages/inbox';
import { MessagesPage } from './pages/messages';
import { OverviewPage } from './pages/overview';
import { SettingsPage } from './pages/settings';
import { SignIn } from './pages/sign-in';
import { TemplatesPage } from './pages/templates';
import { BASE, navigate, useLocation } from './router';

const PAGES = [
  { path: '', title: 'Overview', Page: OverviewPage },
  { path: 'clients', title: 'Clients', Page: ClientsPage },
  { path: 'deliveries', title: 'Deliveries', Page: DeliveriesPage },
  { path: 'inbox', title: 'Inbox', Page: InboxPage },
  { path: 'messages', title: 'Messages', Page: MessagesPage },
  { path: 'calls', title: 'Calls', Page: CallsPage },
  { path: 'flows', title: 'Flows', Page: FlowsPage },
  { path: 'templates', title: 'Templates', Page: TemplatesPage },
  { path: 'campaigns', title: 'Campaigns', Page: CampaignsPage },
  { path: 'audit', title: 'Audit', Page: AuditPage },
  { path: 'settings', title: 'Settings', Page: SettingsPage },
] as const;

type Auth = { state: 'checking' } | { state: 'signed-out'; reason?: string } | { state: 'signed-in'; session: Session } | { state: 'error'; error: Error };

export function App() {
  const [auth, setAuth] = useState<Auth>({ state: 'checking' });
  const check = () => {
    setAuth({ state: 'checking' });
    call<Session>('GET', '/dashboard/session', undefined, { signInCall: true }).then(
      (session) => {
        setCsrfToken(session.csrf_token);
        setAuth({ state: 'signed-in', session });
      },
      (error: { status?: number } & Error) => setAuth(error.status === 401 ? { state: 'signed-out' } : { state: 'error', error }),
    );
  };
  useEffect(() => {
    whenSignedOut(() => setAuth({ state: 'signed-out', reason: 'Your session has ended. Sign in again.' }));
    check();
  }, []);

  if (auth.state === 'checking')
    return (
      <main id="main" class="center">
        <Loading what="your session" />
      </main>
    );
  if (auth.state === 'error')
    return (
      <main id="main" class="center">
        <h1>Gateway dashboard</h1>
        <ErrorState error={auth.error} retry={check} />
      </main>
    );
  if (auth.state === 'signed-out') {
    return (
      <SignIn
        reason={auth.reason}
        onSignedIn={(session) => {
          setCsrfToken(session.csrf_token);
          setAuth({ state: 'signed-in', session });
        }}
      />
    );
  }
  return <Shell session={auth.session} onSignedOut={() => setAuth({ state: 'signed-out', reason: 'You are signed out.' })} />;
}

function Shell({ session, onSignedOut }: { session: Session; onSignedOut: () => void }) {
  const loc = useLocation();
  const current = PAGES.find((p) => p.path === loc.page.split('/')[0]);
  const heading = useRef<HTMLHeadingElement>(null);
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<Error | null>(null);

  useEffect(() => {
    document.title = `${current?.title ?? 'Not found'} · Gateway dashboard`;
    heading.current?.focus();
  }, [loc.page]);

  const signOut = async () => {
    setSigningOut(true);
    try {
      await call('DELETE', '/dashboard/session');
      setCsrfToken('');
      navigate(BASE, { replace: true });
      onSignedOut();
    } catch (e) {
      setSignOutError(e as Error);
      setSigningOut(false);
    }
  };

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Gateway</span>
        <nav aria-label="Main">
          <ul>
            {PAGES.map((p) => (
              <li key={p.path}>
                <Link href={`${BASE}${p.path}`} aria-current={current?.path === p.path ? 'page' : undefined}>
                  {p.title}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span class="muted">Key {session.api_key_prefix}</span>
          <button type="button" onClick={signOut} disabled={signingOut}>
            Sign out
          </button>
        </div>
      </header>
      {signOutError && <ErrorState error={signOutError} />}
      <main id="main">
        <h1 ref={heading} tabIndex={-1}>
          {current?.title ?? 'Page not found'}
        </h1>
        {current ? <current.Page session={session} params={loc.params} /> : <p>There is no such page. Use the navigation above.</p>}
      </main>
    </>
  );
}
