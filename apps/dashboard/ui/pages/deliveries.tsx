import { useState } from 'preact/hooks';
import { EVENT_TYPES, get, post, q, type Client, type Delivery, type Page } from '../api';
import { Empty, Link, Loaded, Pager, StatusBadge, Time } from '../components';
import { useCursor, useLoad } from '../hooks';
import { href, navigate } from '../router';
import { ClientPicker, WithClient } from './client-picker';

const STATUSES = ['pending', 'succeeded', 'failed', 'skipped'];

/** `datetime-local` value (the browser's local time, to the minute) of a moment. */
const localInput = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** The body as sent (exact bytes), and a readable version of it when it is JSON. */
function pretty(body: string): string | null {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return null;
  }
}

function DeliveryDetail({ client, id }: { client: string; id: string }) {
  const [load, reload] = useLoad(() => get<Delivery>(`/api/clients/${client}/webhook/deliveries/${id}`), [client, id]);
  const [retry, setRetry] = useState<{ busy?: boolean; id?: string; error?: string }>({});
  const doRetry = async () => {
    setRetry({ busy: true });
    try {
      const r = await post<{ delivery_id: string }>(`/api/clients/${client}/webhook/deliveries/${id}/retry`);
      setRetry({ id: r.delivery_id });
    } catch (err) {
      setRetry({ error: (err as Error).message });
    }
  };
  return (
    <section aria-labelledby="delivery-title" class="card">
      <p>
        <Link href={href('deliveries', { client })}>← All deliveries of this client</Link>
      </p>
      <Loaded load={load} what="the delivery" retry={reload}>
        {(d) => (
          <>
            <div class="section-head">
              <h2 id="delivery-title">
                Delivery {d.id.slice(0, 8)} <StatusBadge status={d.status} />
              </h2>
              <div class="actions">
                <button type="button" onClick={reload}>
                  Refresh
                </button>
                <button type="button" class="primary" onClick={doRetry} disabled={retry.busy || d.status === 'pending'}>
                  Retry delivery
                </button>
              </div>
            </div>
            <div role="status" aria-live="polite">
              {retry.id && (
                <p class="notice">
                  Retry queued as a new attempt series: <Link href={href('deliveries', { client, delivery: retry.id })}>delivery {retry.id.slice(0, 8)}</Link>.
                </p>
              )}
              {retry.error && <p class="error-text">{retry.error}</p>}
            </div>
            <dl class="props">
              <dt>Event</dt>
              <dd>
                {d.event_type} <span class="muted">({d.event_id})</span>
              </dd>
              <dt>Target</dt>
              <dd class="wrap">{d.url ?? <span class="muted">none (skipped)</span>}</dd>
              <dt>Attempts</dt>
              <dd>{d.attempts}</dd>
              <dt>Last response code</dt>
              <dd>{d.response_code ?? '—'}</dd>
              <dt>Last error</dt>
              <dd>{d.last_error ?? '—'}</dd>
              <dt>Created</dt>
              <dd>
                <Time at={d.created_at} />
              </dd>
            </dl>
            <h3>Attempts</h3>
            {d.attempt_log.length === 0 ? (
              <Empty>No attempt yet.</Empty>
            ) : (
              <table>
                <thead>
                  <tr>
                    <th scope="col">Attempt</th>
                    <th scope="col">Time</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Response code</th>
                    <th scope="col">Error</th>
                  </tr>
                </thead>
                <tbody>
                  {d.attempt_log.map((a) => (
                    <tr key={a.number}>
                      <td>{a.number}</td>
                      <td>
                        <Time at={a.at} />
                      </td>
                      <td>{a.duration_ms} ms</td>
                      <td>{a.response_code ?? '—'}</td>
                      <td class="wrap">{a.error ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
            {typeof d.body === 'string' && (
              <>
                <h3 id="body-title">Signed body</h3>
                <p class="muted">The exact bytes that were signed (X-Signature-256 is HMAC-SHA256 of these with your webhook secret).</p>
                <pre class="code" tabIndex={0} aria-labelledby="body-title">{d.body}</pre>
                {pretty(d.body) && (
                  <details>
                    <summary>Formatted</summary>
                    <pre class="code" tabIndex={0}>{pretty(d.body)}</pre>
                  </details>
                )}
              </>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}

/**
 * Bulk replay (POST .../deliveries/replay): every event whose latest series is failed (or skipped) and was created
 * in the range gets a new series, same event id and bytes. `has_more`: the same call again continues.
 */
function Replay({ client, status, onReplayed }: { client: string; status: string; onReplayed: () => void }) {
  const [replayStatus, setReplayStatus] = useState(status === 'skipped' ? 'skipped' : 'failed');
  const [result, setResult] = useState<{ busy?: boolean; ok?: string; error?: string; more?: { status: string; since: string; until?: string } }>({});
  const run = async (body: { status: string; since: string; until?: string }, total: number) => {
    setResult({ busy: true });
    try {
      const r = await post<{ replayed: number; has_more: boolean }>(`/api/clients/${client}/webhook/deliveries/replay`, body);
      const n = total + r.replayed;
      setResult({
        ok: n === 0 ? `No ${body.status} delivery in that range: nothing to replay.` : `Replayed ${n} ${body.status} deliver${n === 1 ? 'y' : 'ies'}: each gets a new series of attempts below.`,
        more: r.has_more ? body : undefined,
      });
      onReplayed();
    } catch (err) {
      setResult({ error: (err as Error).message });
    }
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const since = String(f.get('since') ?? '');
    const until = String(f.get('until') ?? '');
    if (!since) return setResult({ error: 'Choose when the range starts.' });
    void run({ status: String(f.get('status') ?? 'failed'), since: new Date(since).toISOString(), ...(until ? { until: new Date(until).toISOString() } : {}) }, 0);
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="replay-title">
      <h2 id="replay-title">Replay deliveries</h2>
      <p class="muted">
        After an outage of your receiver: every event whose latest delivery is failed (or skipped, while the webhook was disabled) and was created in the range is sent again, with the same event id
        and body, so receivers can drop the ones they already have.
      </p>
      <div class="filters">
        <div class="field">
          <label for="replay-status">Deliveries that are</label>
          <select id="replay-status" name="status" value={replayStatus} onChange={(e) => setReplayStatus((e.currentTarget as HTMLSelectElement).value)}>
            <option value="failed">failed</option>
            <option value="skipped">skipped</option>
          </select>
        </div>
        <div class="field">
          <label for="replay-since">Created from</label>
          <input id="replay-since" name="since" type="datetime-local" required defaultValue={localInput(new Date(Date.now() - 86_400_000))} />
        </div>
        <div class="field">
          <label for="replay-until">Until (optional, default now)</label>
          <input id="replay-until" name="until" type="datetime-local" />
        </div>
        <button type="submit" class="primary" disabled={result.busy}>
          {result.busy ? 'Replaying…' : 'Replay'}
        </button>
      </div>
      <div role="status" aria-live="polite">
        {result.ok && <p class="notice">{result.ok}</p>}
        {result.error && <p class="error-text">{result.error}</p>}
        {result.more && (
          <p>
            More remain in that range (at most 10,000 per call).{' '}
            <button type="button" onClick={() => result.more && run(result.more, 0)}>
              Replay the next ones
            </button>
          </p>
        )}
      </div>
    </form>
  );
}

/** A warning when the client's webhook is disabled: its events are skipped until it is enabled again. */
function DisabledBanner({ client }: { client: Client }) {
  if (client.webhook_status !== 'disabled') return null;
  return (
    <div class="card warning" role="note" aria-label="Webhook disabled">
      <strong>The webhook of {client.display_name} is disabled</strong> ({client.webhook_disabled_reason ?? 'unknown reason'}): its events are recorded as skipped and not sent.{' '}
      <Link href={href('clients', { client: client.id })}>Enable it on the client’s page</Link>, then replay the skipped deliveries below.
    </div>
  );
}

function DeliveryList({ client, status, eventType }: { client: string; status: string; eventType: string }) {
  const paging = useCursor([client, status, eventType]);
  const [load, reload] = useLoad(
    () => get<Page<Delivery>>(`/api/clients/${client}/webhook/deliveries${q({ status, event_type: eventType, limit: 20, cursor: paging.cursor })}`),
    [client, status, eventType, paging.cursor],
  );
  return (
    <section aria-labelledby="deliveries-title">
      <div class="section-head">
        <h2 id="deliveries-title">Deliveries</h2>
        <button type="button" onClick={reload}>
          Refresh
        </button>
      </div>
      <Loaded load={load} what="deliveries" retry={reload}>
        {(page) =>
          page.data.length === 0 && !paging.hasPrev ? (
            <Empty>{status || eventType ? 'No delivery matches these filters.' : 'No deliveries for this client yet. Send a test event from the Clients page.'}</Empty>
          ) : (
            <>
              <table>
                <thead>
                  <tr>
                    <th scope="col">Created</th>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Response code</th>
                    <th scope="col">Last error</th>
                    <th scope="col"><span class="sr-only">Open</span></th>
                  </tr>
                </thead>
                <tbody>
                  {page.data.map((d) => (
                    <tr key={d.id} data-delivery-id={d.id}>
                      <td>
                        <Time at={d.created_at} />
                      </td>
                      <td>{d.event_type}</td>
                      <td>
                        <StatusBadge status={d.status} />
                      </td>
                      <td>{d.attempts}</td>
                      <td>{d.response_code ?? '—'}</td>
                      <td class="wrap">{d.last_error ?? '—'}</td>
                      <td>
                        <Link href={href('deliveries', { client, delivery: d.id })} aria-label={`Open ${d.event_type} delivery ${d.id.slice(0, 8)}`}>
                          Open
                        </Link>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <Pager label="Deliveries" page={paging.page} hasPrev={paging.hasPrev} nextCursor={page.next_cursor} onPrev={paging.prev} onNext={paging.next} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}

export function DeliveriesPage({ params }: { params: URLSearchParams }) {
  const client = params.get('client') ?? '';
  const status = params.get('status') ?? '';
  const eventType = params.get('event_type') ?? '';
  const delivery = params.get('delivery');
  const go = (next: Record<string, string | undefined>) => navigate(href('deliveries', { client, status, event_type: eventType, ...next }), { replace: true });
  return (
    <>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Delivery filters">
        <ClientPicker value={client} onChange={(id) => navigate(href('deliveries', { client: id, status, event_type: eventType }))} />
        <div class="field">
          <label for="status-filter">Status</label>
          <select id="status-filter" value={status} disabled={!client} onChange={(e) => go({ status: (e.currentTarget as HTMLSelectElement).value })}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="type-filter">Event type</label>
          <select id="type-filter" value={eventType} disabled={!client} onChange={(e) => go({ event_type: (e.currentTarget as HTMLSelectElement).value })}>
            <option value="">Any event type</option>
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
      </form>
      {!client ? (
        <Empty>Choose a client to see its webhook deliveries.</Empty>
      ) : delivery ? (
        <DeliveryDetail client={client} id={delivery} />
      ) : (
        <ListWithReplay key={client} client={client} status={status} eventType={eventType} />
      )}
    </>
  );
}

function ListWithReplay({ client, status, eventType }: { client: string; status: string; eventType: string }) {
  const [tick, setTick] = useState(0);
  return (
    <WithClient id={client}>
      {(c) => (
        <>
          <DisabledBanner client={c} />
          <DeliveryList key={tick} client={client} status={status} eventType={eventType} />
          <Replay client={client} status={status} onReplayed={() => setTick((t) => t + 1)} />
        </>
      )}
    </WithClient>
  );
}
