import { useState } from 'preact/hooks';
import { EVENT_TYPES, patch, post, type Client } from '../api';
import { Confirm, Link, Notice, SectionHead, Time, signupLabel } from '../components';
import { href } from '../router';
import { WithClient } from './client-picker';

const EVENT_HELP: Record<string, string> = {
  chat: 'messages, statuses and other provider updates',
  signup_completed: 'the embedded signup finished',
  template_status: 'a template was approved, rejected, paused…',
  flow_completion: 'a customer completed a flow',
  test: 'always sent when you ask for one',
};

/** Active or disabled (410 Gone, failing for the disable period, or by the tenant), with enable / disable. */
function WebhookStatus({ client, onChanged }: { client: Client; onChanged: (c: Client) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ ok?: string; error?: string }>({});
  const set = async (status: 'active' | 'disabled') => {
    setBusy(true);
    try {
      const c = await patch<Client>(`/api/clients/${client.id}`, { webhook_status: status });
      setNotice({ ok: status === 'active' ? 'Webhook enabled: the next event is delivered.' : 'Webhook disabled: events are recorded as skipped.' });
      onChanged(c);
    } catch (err) {
      setNotice({ error: (err as Error).message });
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  const disabled = client.webhook_status === 'disabled';
  return (
    <section class="card" aria-labelledby="webhook-status-title">
      <SectionHead id="webhook-status-title" title="Webhook" status={client.webhook_status}>
        {disabled ? (
          <button type="button" class="primary" disabled={busy} onClick={() => set('active')}>
            Enable webhook
          </button>
        ) : (
          <button type="button" class="danger" disabled={busy} onClick={() => setConfirming(true)}>
            Disable webhook
          </button>
        )}
      </SectionHead>
      <Notice ok={notice.ok} error={notice.error} />
      <dl class="props">
        <dt>Target URL</dt>
        <dd class="wrap">{client.webhook_url ?? <span class="muted">the tenant’s webhook URL (Settings)</span>}</dd>
        {disabled && (
          <>
            <dt>Disabled because</dt>
            <dd class="error-text">{client.webhook_disabled_reason ?? 'unknown'}</dd>
            <dt>Disabled since</dt>
            <dd>
              <Time at={client.webhook_disabled_at} />
            </dd>
          </>
        )}
      </dl>
      {disabled ? (
        <p class="muted">
          While disabled, this client’s events are not sent; they are recorded as <em>skipped</em>. Enable the webhook (or save a new webhook URL), then replay
          the skipped deliveries from the <Link href={href('deliveries', { client: client.id, status: 'skipped' })}>Deliveries page</Link>.
        </p>
      ) : (
        <p class="muted">A receiver answering 410 Gone, or every delivery failing for the disable period (5 days by default), disables the webhook.</p>
      )}
      <Confirm
        open={confirming}
        title="Disable this webhook?"
        message={
          <p>Events of {client.display_name} stop being sent until you enable the webhook again. They are recorded as skipped, so you can replay them later.</p>
        }
        confirmLabel="Disable webhook"
        danger
        busy={busy}
        onConfirm={() => set('disabled')}
        onCancel={() => setConfirming(false)}
      />
    </section>
  );
}

/** Which event types the client's webhook receives (`webhook_events`; none chosen: every type). */
function EventFilter({ client, onChanged }: { client: Client; onChanged: (c: Client) => void }) {
  const [only, setOnly] = useState(client.webhook_events.length > 0);
  const [chosen, setChosen] = useState<string[]>(client.webhook_events);
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<{ ok?: string; error?: string }>({});
  const save = async (e: Event) => {
    e.preventDefault();
    if (only && chosen.length === 0) {
      setNotice({ error: 'Choose at least one event type, or choose “Every event type”.' });
      return;
    }
    setBusy(true);
    try {
      const events = only ? EVENT_TYPES.filter((t) => chosen.includes(t)) : [];
      const c = await patch<Client>(`/api/clients/${client.id}`, { webhook_events: events });
      setNotice({
        ok: c.webhook_events.length ? `Event filter saved: only ${c.webhook_events.join(', ')} (and test events).` : 'Event filter saved: every event type.',
      });
      onChanged(c);
    } catch (err) {
      setNotice({ error: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={save} aria-labelledby="filter-title">
      <h2 id="filter-title">Event filter</h2>
      <p class="muted">Events filtered out are neither sent nor recorded. Test events are always sent.</p>
      <fieldset class="choices">
        <legend>Events this webhook receives</legend>
        <label>
          <input type="radio" name="mode" checked={!only} onChange={() => setOnly(false)} /> Every event type
        </label>
        <label>
          <input type="radio" name="mode" checked={only} onChange={() => setOnly(true)} /> Only the types chosen below
        </label>
        <ul class="checks">
          {EVENT_TYPES.filter((t) => t !== 'test').map((t) => (
            <li key={t}>
              <label>
                <input
                  type="checkbox"
                  name="events"
                  value={t}
                  disabled={!only}
                  checked={chosen.includes(t)}
                  onChange={(e) => {
                    const on = (e.currentTarget as HTMLInputElement).checked;
                    setChosen((c) => (on ? [...c.filter((x) => x !== t), t] : c.filter((x) => x !== t)));
                  }}
                />{' '}
                <code>{t}</code> <span class="muted">{EVENT_HELP[t]}</span>
              </label>
            </li>
          ))}
        </ul>
      </fieldset>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Save event filter
        </button>
        <span role="status" aria-live="polite">
          {notice.ok && <span class="notice">{notice.ok}</span>}
          {notice.error && <span class="error-text">{notice.error}</span>}
        </span>
      </div>
    </form>
  );
}

export function ClientDetail({ id }: { id: string }) {
  // the client as the last change answered it (the webhook, the event filter), until the next load
  const [changed, setChanged] = useState<Client | null>(null);
  const [test, setTest] = useState<{ ok?: string; error?: string }>({});
  const sendTest = async () => {
    setTest({ ok: 'Sending a test event…' });
    try {
      const r = await post<{ delivery_id: string }>(`/api/clients/${id}/webhook/test`);
      setTest({ ok: `Test event sent (delivery ${r.delivery_id.slice(0, 8)}).` });
    } catch (err) {
      setTest({ error: (err as Error).message });
    }
  };
  return (
    <>
      <p>
        <Link href={href('clients')}>← All clients</Link>
      </p>
      <WithClient id={id}>
        {(loaded, reload) => {
          const c = changed && changed.id === loaded.id ? changed : loaded;
          return (
            <>
              <section class="card" aria-labelledby="client-title">
                <SectionHead id="client-title" title={c.display_name} status={signupLabel(c)}>
                  <button type="button" onClick={() => (setChanged(null), reload())}>
                    Refresh
                  </button>
                  <button type="button" onClick={sendTest}>
                    Send test event
                  </button>
                </SectionHead>
                <Notice
                  ok={
                    test.ok && (
                      <>
                        {test.ok} <Link href={href('deliveries', { client: c.id })}>View its deliveries</Link>
                      </>
                    )
                  }
                  error={test.error}
                />
                <dl class="props">
                  <dt>Client id</dt>
                  <dd>
                    <code>{c.id}</code>
                  </dd>
                  <dt>External id</dt>
                  <dd>{c.external_id ?? <span class="muted">—</span>}</dd>
                  <dt>Phone number id</dt>
                  <dd>{c.phone_number_id ?? <span class="muted">— (signup not finished)</span>}</dd>
                  <dt>Business account id</dt>
                  <dd>{c.business_account_id ?? <span class="muted">—</span>}</dd>
                  <dt>Created</dt>
                  <dd>
                    <Time at={c.created_at} />
                  </dd>
                </dl>
                <p class="actions">
                  <Link href={href('deliveries', { client: c.id })}>Deliveries</Link>
                  <Link href={href('templates', { client: c.id })}>Templates</Link>
                  <Link href={href('flows', { client: c.id })}>Flows</Link>
                </p>
              </section>
              <WebhookStatus client={c} onChanged={setChanged} />
              <EventFilter key={c.id} client={c} onChanged={setChanged} />
            </>
          );
        }}
      </WithClient>
    </>
  );
}
