import { useEffect, useState } from 'preact/hooks';
import { session, type Session, type SignInMethod } from '../api.ts';
import { Alert, errorText } from '../ui.tsx';

export function SignIn(p: { onSignedIn: (s: Session) => void; error?: string | null }) {
  const [user, setUser] = useState('');
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(p.error ?? null);
  const [busy, setBusy] = useState(false);
  const [methods, setMethods] = useState<SignInMethod[]>([]);
  useEffect(() => {
    // Single sign-on, when a plugin offers it: a link (a full navigation to the provider), beside the token form.
    session.methods().then(
      (r) => setMethods(r.methods),
      () => setMethods([]),
    );
  }, []);
  return (
    <main id="main" class="sign-in">
      <h1>Sign in to hub</h1>
      <p>
        Use a hub token (the same one the CLI takes). The console keeps the session in a cookie scripts cannot read.
      </p>
      <Alert error={error} />
      {methods.length > 0 && (
        <p class="sign-in-methods">
          {methods.map((m) => (
            <a key={m.id} class="button primary" href={m.url}>
              Sign in with {m.label}
            </a>
          ))}
        </p>
      )}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          session.signIn(token.trim(), user.trim() || undefined).then(p.onSignedIn, (err) => {
            setError(errorText(err));
            setBusy(false);
          });
        }}
      >
        <label for="user">User (optional)</label>
        <input
          id="user"
          name="user"
          autoComplete="username"
          value={user}
          onInput={(e) => setUser(e.currentTarget.value)}
        />
        <label for="token">Token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="current-password"
          required
          value={token}
          onInput={(e) => setToken(e.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}
