import { useEffect, useState } from 'preact/hooks';
import { ApiError, session, setCsrf, whenSignedOut, type Session } from './api.ts';
import { href, useLocation } from './route.ts';
import { Alert, errorText, Link } from './ui.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { HealthPage } from './pages/health.tsx';
import { UpstreamPage } from './pages/upstream.tsx';
import { BlocksPage } from './pages/blocks.tsx';
import { PackagesPage } from './pages/packages.tsx';
import { PackagePage } from './pages/package.tsx';
import { OperationsPage } from './pages/operations.tsx';
import { IncidentPage } from './pages/incident.tsx';
import { AuditLogPage } from './pages/audit-log.tsx';
import { LockfilePage } from './pages/lockfile.tsx';

const NAV: Array<[string, string]> = [
  ['', 'Health'],
  ['upstream', 'Upstream'],
  ['blocks', 'Blocks'],
  ['packages', 'Packages'],
  ['incident', 'Incidents'],
  ['audit-log', 'Audit log'],
  ['lockfile', 'Lockfile check'],
  ['operations', 'Operations'],
];

export function App() {
  const [me, setMe] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const loc = useLocation();
  useEffect(() => {
    whenSignedOut(() => setMe(null));
    session.current().then(
      (s) => {
        setCsrf(s.csrf);
        setMe(s);
      },
      (e) => {
        if (!(e instanceof ApiError && e.status === 401)) setError(errorText(e));
        setMe(null);
      },
    );
  }, []);
  const [page = '', ...rest] = loc.segments;
  const title = me ? (NAV.find(([p]) => p === page)?.[1] ?? 'Not found') : 'Sign in';
  useEffect(() => {
    document.title = `${title} · hub console`;
  }, [title]);
  if (me === undefined)
    return (
      <main id="main">
        <p>Loading…</p>
      </main>
    );
  if (me === null)
    return (
      <SignIn
        error={error}
        onSignedIn={(s) => {
          setCsrf(s.csrf);
          setMe(s);
        }}
      />
    );
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">hub console</span>
        <nav aria-label="Console">
          <ul>
            {NAV.map(([p, label]) => (
              <li key={p}>
                <Link to={href(p ? [p] : [])} current={p === page}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            Signed in as <strong>{me.user_id}</strong>
            {me.can.write ? '' : ' (read-only)'}
          </span>
          <button
            type="button"
            onClick={() => {
              session.signOut().finally(() => {
                setCsrf('');
                setMe(null);
              });
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Alert error={error} />
        {page === '' && <HealthPage />}
        {page === 'upstream' && <UpstreamPage me={me} q={loc.query} />}
        {page === 'blocks' && <BlocksPage me={me} q={loc.query} />}
        {page === 'packages' && rest.length === 2 && (
          <PackagePage me={me} registry={rest[0]!} name={rest[1]!} q={loc.query} />
        )}
        {page === 'packages' && rest.length !== 2 && <PackagesPage q={loc.query} />}
        {page === 'incident' && <IncidentPage me={me} q={loc.query} />}
        {page === 'audit-log' && <AuditLogPage q={loc.query} />}
        {page === 'lockfile' && <LockfilePage />}
        {page === 'operations' && <OperationsPage me={me} q={loc.query} />}
        {title === 'Not found' && <h1>Not found</h1>}
      </main>
    </>
  );
}
