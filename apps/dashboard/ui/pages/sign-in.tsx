import { useState } from 'preact/hooks';
import { call, type Session } from '../api';

/** Exchanges an API key for a session; the key leaves the page with this one request and is then forgotten. */
export function SignIn({ reason, onSignedIn }: { reason?: string; onSignedIn: (s: Session) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const input = form.elements.namedItem('api_key') as HTMLInputElement;
    setBusy(true);
    setError(null);
    try {
      const session = await call<Session>('POST', '/dashboard/session', { api_key: input.value.trim() }, { signInCall: true });
      input.value = '';
      onSignedIn(session);
    } catch (err) {
      const e2 = err as Error & { status?: number };
      setError(e2.status === 401 ? 'That API key is not valid (unknown or revoked).' : e2.status === 422 ? 'Enter an API key.' : e2.message);
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Gateway dashboard</h1>
      <p>Sign in with one of your API keys. The key is exchanged for a session; the browser does not keep it.</p>
      {reason && <p role="status">{reason}</p>}
      <form onSubmit={submit} noValidate>
        <div class="field">
          <label for="api-key">API key</label>
          <input
            id="api-key"
            name="api_key"
            type="password"
            autoComplete="off"
            spellcheck={false}
            required
            aria-describedby={error ? 'sign-in-error' : undefined}
            aria-invalid={error ? true : undefined}
          />
        </div>
        {error && (
          <p id="sign-in-error" class="error-text" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
