import { useState } from 'preact/hooks';
import { del, get, post, put, type ApiKey, type SecretRotation, type Session, type Tenant } from '../api';
import { Confirm, CopyField, Empty, Loaded, Notice, StatusBadge, Time } from '../components';
import { useLoad } from '../hooks';
import { RecordTable } from '../records';

function Webhook() {
  const [load, reload] = useLoad(() => get<Tenant>('/api/tenants/me'), []);
  const [revealed, setRevealed] = useState(false);
  const [rotation, setRotation] = useState<{ confirming?: boolean; busy?: boolean; done?: SecretRotation; error?: string }>({});
  const rotate = async () => {
    setRotation({ confirming: true, busy: true });
    try {
      const done = await post<SecretRotation>('/api/tenants/webhook-secret/rotate');
      setRevealed(false);
      setRotation({ done });
    } catch (err) {
      setRotation({ error: (err as Error).message });
    }
  };
  const [saved, setSaved] = useState<{ ok?: string; error?: string }>({});
  const save = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    try {
      await put<Tenant>('/api/tenants/webhook-url', { webhook_url: String(f.get('webhook_url') ?? '').trim() });
      setSaved({ ok: 'Webhook URL saved.' });
    } catch (err) {
      setSaved({ error: (err as Error).message });
    }
  };
  return (
    <section class="card" aria-labelledby="webhook-title">
      <h2 id="webhook-title">Webhook</h2>
      <Loaded load={load} what="webhook settings" retry={reload}>
        {(t) => (
          <>
            <form onSubmit={save}>
              <div class="field">
                <label for="tenant-webhook-url">Webhook URL (for clients without their own)</label>
                <div class="row">
                  <input id="tenant-webhook-url" name="webhook_url" type="url" required defaultValue={t.webhook_url ?? ''} placeholder="https://…" />
                  <button type="submit" class="primary">
                    Save
                  </button>
                </div>
              </div>
              <Notice ok={saved.ok} error={saved.error} />
            </form>
            <div class="field">
              <span class="label" id="secret-label">
                Webhook secret
              </span>
              <div class="row">
                <code class="secret" aria-labelledby="secret-label" id="webhook-secret">
                  {revealed ? (rotation.done?.webhook_secret ?? t.webhook_secret) : '•'.repeat(24)}
                </code>
                <button type="button" aria-pressed={revealed} aria-controls="webhook-secret" onClick={() => setRevealed((r) => !r)}>
                  {revealed ? 'Hide secret' : 'Reveal secret'}
                </button>
                <button type="button" onClick={() => setRotation({ confirming: true })}>
                  Rotate secret
                </button>
              </div>
              <p class="muted">
                Deliveries carry <code>webhook-signature</code> (Standard Webhooks: one entry per live secret) and <code>X-Signature-256</code> (sha256 HMAC of
                the body with the current secret).
              </p>
              <Notice
                ok={
                  rotation.done && (
                    <>
                      New secret issued (reveal it above and store it in your receivers). The previous secret keeps signing every delivery beside it until{' '}
                      <Time at={rotation.done.previous_secret_expires_at} />; after that only the new one signs.
                    </>
                  )
                }
                error={rotation.error}
              />
            </div>
            <Confirm
              open={!!rotation.confirming}
              title="Rotate the webhook secret?"
              message={
                <>
                  <p>A new secret is made now and signs every delivery from the next one on.</p>
                  <p>
                    During the overlap (24 hours by default) each delivery carries two <code>webhook-signature</code> entries, one per secret, so receivers
                    holding either secret keep verifying; <code>X-Signature-256</code> uses the new secret at once. Store the new secret in your receivers
                    before the overlap ends: after it, the current secret no longer signs. This cannot be undone; rotating again during the overlap ends it
                    early.
                  </p>
                </>
              }
              confirmLabel="Rotate secret"
              busy={rotation.busy}
              onConfirm={rotate}
              onCancel={() => setRotation({})}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

function Keys({ session }: { session: Session }) {
  const [load, reload] = useLoad(() => get<{ data: ApiKey[] }>('/api/api-keys'), []);
  const [created, setCreated] = useState<{ api_key: string; prefix: string } | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const create = async () => {
    setError(null);
    try {
      setCreated(await post<{ api_key: string; prefix: string }>('/api/api-keys'));
      reload();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const revoke = async () => {
    if (!revoking) return;
    setBusy(true);
    try {
      await del(`/api/api-keys/${revoking.prefix}${revoking.current ? '?confirm=true' : ''}`);
      // revoking the session's own key ended the session: the next call finds it signed out
      if (revoking.current) await get('/dashboard/session').catch(() => undefined);
      setRevoking(null);
      reload();
    } catch (err) {
      setError((err as Error).message);
      setRevoking(null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="keys-title">
      <div class="section-head">
        <h2 id="keys-title">API keys</h2>
        <button type="button" class="primary" onClick={create}>
          Create API key
        </button>
      </div>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      {created && (
        <div class="success">
          <CopyField id="new-key" label={`New key ${created.prefix} (shown only now: copy it)`} value={created.api_key} />
        </div>
      )}
      <Loaded load={load} what="API keys" retry={reload}>
        {({ data }) =>
          data.length === 0 ? (
            <Empty>No API keys.</Empty>
          ) : (
            <RecordTable
              rows={data}
              rowKey={(k) => k.prefix}
              columns={[
                {
                  head: 'Prefix',
                  rowHeader: true,
                  cell: (k) => (
                    <>
                      <code>{k.prefix}</code> {k.prefix === session.api_key_prefix && <span class="muted">(this session)</span>}
                    </>
                  ),
                },
                { head: 'Created', cell: (k) => <Time at={k.created_at} /> },
                { head: 'Last used', cell: (k) => <Time at={k.last_used_at} /> },
                { head: 'Status', cell: (k) => <StatusBadge status={k.revoked_at ? 'revoked' : 'active'} /> },
                {
                  head: 'Actions',
                  srOnly: true,
                  cell: (k) =>
                    !k.revoked_at && (
                      <button type="button" class="danger" onClick={() => setRevoking(k)} aria-label={`Revoke key ${k.prefix}`}>
                        Revoke
                      </button>
                    ),
                },
              ]}
            />
          )
        }
      </Loaded>
      <Confirm
        open={revoking !== null}
        title={revoking?.current ? 'Revoke the key of this session?' : `Revoke key ${revoking?.prefix ?? ''}?`}
        message={
          revoking?.current ? (
            <p>You signed in with this key. Revoking it signs you out now and every program using it stops working within 5 seconds. This cannot be undone.</p>
          ) : (
            <p>Every program using this key stops working within 5 seconds, and dashboard sessions opened with it end. This cannot be undone.</p>
          )
        }
        confirmLabel="Revoke key"
        danger
        busy={busy}
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      />
    </section>
  );
}

export function SettingsPage({ session }: { session: Session }) {
  return (
    <>
      <Webhook />
      <Keys session={session} />
    </>
  );
}
