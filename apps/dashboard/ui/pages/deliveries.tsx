import { useState } from 'preact/hooks';
import { EVENT_TYPES, get, post, type Attempt, type Client, type Delivery } from '../api';
import { Empty, FilterSelect, Link, Loaded, Notice, SectionHead, StatusBadge, Time } from '../components';
import { useCursorPages, useLoad } from '../hooks';
import { CursorList, RecordTable, openColumn, type Column } from '../records';
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

const ATTEMPT_COLUMNS: Column<Attempt>[] = [
  { head: 'Attempt', cell: (a) => a.number },
  { head: 'Time', cell: (a) => <Time at={a.at} /> },
  { head: 'Duration', cell: (a) => `${a.duration_ms} ms` },
  { head: 'Response code', cell: (a) => a.response_code ?? '—' },
  { head: 'Error', class: 'wrap', cell: (a) => a.error ?? '—' },
];

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
            <SectionHead id="delivery-title" title={`Delivery ${d.id.slice(0, 8)}`} status={d.status}>
              <button type="button" onClick={reload}>
                Refresh
              </button>
              <button type="button" class="primary" onClick={doRetry} disabled={retry.busy || d.status === 'pending'}>
                Retry delivery
              </button>
            </SectionHead>
            <Notice
              ok={
                retry.id && (
                  <>
                    Retry queued as a new attempt series: <Link href={href('deliveries', { client, delivery: retry.id })}>delivery {retry.id.slice(0, 8)}</Link>
                    .
                  </>
                )
              }
              error={retry.error}
            />
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
              <RecordTable rows={d.attempt_log} columns={ATTEMPT_COLUMNS} rowKey={(a) => a.number} />
            )}
            {typeof d.body === 'string' && (
              <>
                <h3 id="body-title">Signed body</h3>
                <p class="muted">The exact bytes that were signed (X-Signature-256 is HMAC-SHA256 of these with your webhook secret).</p>
                <pre class="code" tabIndex={0} aria-labelledby="body-title">
                  {d.body}
                </pre>
                {pretty(d.body) && (
                  <details>
                    <summary>Formatted</summary>
                    <pre class="code" tabIndex={0}>
                      {pretty(d.body)}
                    </pre>
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
        ok:
          n === 0
            ? `No ${body.status} delivery in that range: nothing to replay.`
            : `Replayed ${n} ${body.status} deliver${n === 1 ? 'y' : 'ies'}: each gets a new series of attempts below.`,
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
    void run(
      { status: String(f.get('status') ?? 'failed'), since: new Date(since).toISOString(), ...(until ? { until: new Date(until).toISOString() } : {}) },
      0,
    );
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="replay-title">
      <h2 id="replay-title">Replay deliveries</h2>
      <p class="muted">
        After an outage of your receiver: every event whose latest delivery is failed (or skipped, while the webhook was disabled) and was created in the range
        is sent again, with the same event id and body, so receivers can drop the ones they already have.
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
      <Notice ok={result.ok} error={result.error}>
        {result.more && (
          <p>
            More remain in that range (at most 10,000 per call).{' '}
            <button type="button" onClick={() => result.more && run(result.more, 0)}>
              Replay the next ones
            </button>
          </p>
        )}
      </Notice>
    </form>
  );
}

/** A warning when the client's webhook is disabled: its events are skipped until it is enabled again. */
function DisabledBanner({ client }: { client: Client }) {
  if (client.webhook_status !== 'disabled') return null;
  return (
    <div class="card warning" role="note" aria-label="Webhook disabled">
      <strong>The webhook of {client.display_name} is disabled</strong> ({client.webhook_disabled_reason ?? 'unknown reason'}): its events are recorded as
      skipped and not sent. <Link href={href('clients', { client: client.id })}>Enable it on the client’s page</Link>, then replay the skipped deliveries below.
    </div>
  );
}

const columns = (client: string): Column<Delivery>[] => [
  { head: 'Created', cell: (d) => <Time at={d.created_at} /> },
  { head: 'Event', cell: (d) => d.event_type },
  { head: 'Status', cell: (d) => <StatusBadge status={d.status} /> },
  { head: 'Attempts', cell: (d) => d.attempts },
  { head: 'Response code', cell: (d) => d.response_code ?? '—' },
  { head: 'Last error', class: 'wrap', cell: (d) => d.last_error ?? '—' },
  openColumn(
    (d) => href('deliveries', { client, delivery: d.id }),
    (d) => `Open ${d.event_type} delivery ${d.id.slice(0, 8)}`,
  ),
];

function DeliveryList({ client, status, eventType }: { client: string; status: string; eventType: string }) {
  const list = useCursorPages<Delivery>(`/api/clients/${client}/webhook/deliveries`, { status, event_type: eventType });
  return (
    <section aria-labelledby="deliveries-title">
      <SectionHead id="deliveries-title" title="Deliveries">
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </SectionHead>
      <CursorList
        list={list}
        what="deliveries"
        empty={status || eventType ? 'No delivery matches these filters.' : 'No deliveries for this client yet. Send a test event from the Clients page.'}
        columns={columns(client)}
        rowKey={(d) => d.id}
        rowAttr="data-delivery-id"
      />
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
        <FilterSelect
          id="status-filter"
          label="Status"
          any="Any status"
          options={STATUSES}
          value={status}
          disabled={!client}
          onChange={(s) => go({ status: s })}
        />
        <FilterSelect
          id="type-filter"
          label="Event type"
          any="Any event type"
          options={EVENT_TYPES}
          value={eventType}
          disabled={!client}
          onChange={(t) => go({ event_type: t })}
        />
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
