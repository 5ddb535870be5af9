import { useState } from 'preact/hooks';
import { get, put, type Call, type CallingSettings } from '../api';
import { Empty, Link, Loaded, Notice, SectionHead, StatusBadge, Time } from '../components';
import { useCursorPages, useLoad } from '../hooks';
import { CursorList, openColumn } from '../records';
import { href, navigate } from '../router';
import { ClientPicker, WithClient } from './client-picker';

const label = (status: string) => status.replace('_', '-');
const direction = (d: string) => (d === 'business_initiated' ? 'Outbound (business)' : 'Inbound (user)');
const duration = (s: number | null) => (s === null ? '—' : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`);

/** One call: its timeline (ringing … terminated), start, end and the provider's duration. */
function CallView({ client, id }: { client: string; id: string }) {
  const [load, reload] = useLoad(() => get<Call>(`/api/calls/${encodeURIComponent(id)}?client_id=${client}`), [client, id]);
  return (
    <section class="card" aria-labelledby="call-title">
      <p>
        <Link href={href('calls', { client })}>← All calls of this client</Link>
      </p>
      <Loaded load={load} what="the call" retry={reload}>
        {(c) => (
          <>
            <SectionHead id="call-title" title="Call" status={label(c.status)}>
              <button type="button" onClick={reload}>
                Refresh
              </button>
            </SectionHead>
            <dl class="props">
              <dt>Id</dt>
              <dd class="wrap">{c.id}</dd>
              <dt>Direction</dt>
              <dd>{direction(c.direction)}</dd>
              <dt>User</dt>
              <dd>{c.user || '—'}</dd>
              <dt>Answered</dt>
              <dd>{c.started_at ? <Time at={c.started_at} /> : 'no'}</dd>
              <dt>Ended</dt>
              <dd>{c.ended_at ? <Time at={c.ended_at} /> : 'not yet'}</dd>
              <dt>Duration</dt>
              <dd>{duration(c.duration_seconds)}</dd>
            </dl>
            <h3>Status timeline</h3>
            <ol class="timeline">
              {c.timeline.map((t) => (
                <li key={t.status}>
                  <StatusBadge status={label(t.status)} /> <Time at={t.at} /> <span class="muted">({t.source === 'action' ? 'your action' : 'provider'})</span>
                </li>
              ))}
            </ol>
            {c.errors !== null && <pre class="code">{JSON.stringify(c.errors, null, 2)}</pre>}
          </>
        )}
      </Loaded>
    </section>
  );
}

/** The number's calling settings at the provider: calling on or off, the call button, callback permission. */
function Settings({ client }: { client: string }) {
  const [load, reload] = useLoad(() => get<CallingSettings>(`/api/clients/${client}/calling`), [client]);
  const [notice, setNotice] = useState<{ ok?: string; error?: string }>({});
  const [busy, setBusy] = useState(false);
  const save = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    try {
      await put(`/api/clients/${client}/calling`, {
        enabled: f.get('enabled') === 'on',
        callback_permission: f.get('callback_permission') === 'on',
        call_icon_visibility: String(f.get('call_icon_visibility')),
      });
      setNotice({ ok: 'Calling settings saved at the provider (WhatsApp clients may take a while to show them).' });
      reload();
    } catch (err) {
      setNotice({ error: (err as Error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="calling-title">
      <SectionHead id="calling-title" title="Calling settings" />
      <Loaded load={load} what="the calling settings" retry={reload}>
        {(s) => (
          <form onSubmit={save} class="filters">
            <div class="field">
              <label>
                <input type="checkbox" name="enabled" defaultChecked={s.enabled} key={`e${String(s.enabled)}`} /> Calling enabled
              </label>
            </div>
            <div class="field">
              <label>
                <input type="checkbox" name="callback_permission" defaultChecked={s.callback_permission} key={`c${String(s.callback_permission)}`} /> A user's
                call grants callback permission
              </label>
            </div>
            <div class="field">
              <label for="call-icon">Call button</label>
              <select id="call-icon" name="call_icon_visibility" defaultValue={s.call_icon_visibility} key={s.call_icon_visibility}>
                <option value="DEFAULT">Shown (default)</option>
                <option value="DISABLE_ALL">Hidden</option>
              </select>
            </div>
            <p class="muted grow">
              Call hours:{' '}
              {s.call_hours?.enabled
                ? `${String(s.call_hours.timezone_id ?? '')}, ${Array.isArray(s.call_hours.weekly_operating_hours) ? s.call_hours.weekly_operating_hours.length : 0} weekly ranges`
                : 'always open'}
            </p>
            <button type="submit" class="primary" disabled={busy}>
              Save settings
            </button>
            <Notice ok={notice.ok} error={notice.error} />
          </form>
        )}
      </Loaded>
    </section>
  );
}

function CallList({ client }: { client: string }) {
  const list = useCursorPages<Call>('/api/calls', { client_id: client });
  return (
    <section class="card" aria-labelledby="calls-title">
      <SectionHead id="calls-title" title="Calls">
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </SectionHead>
      <CursorList
        list={list}
        what="calls"
        empty="This client has no calls yet."
        rowKey={(c) => c.id}
        rowAttr="data-call-id"
        columns={[
          { head: 'User', rowHeader: true, cell: (c) => c.user || '—' },
          { head: 'Direction', cell: (c) => direction(c.direction) },
          { head: 'Status', cell: (c) => <StatusBadge status={label(c.status)} /> },
          { head: 'Duration', cell: (c) => duration(c.duration_seconds) },
          { head: 'Started', cell: (c) => <Time at={c.created_at} /> },
          openColumn<Call>(
            (c) => href('calls', { client, call: c.id }),
            (c) => `Open call with ${c.user || c.id}`,
          ),
        ]}
      />
    </section>
  );
}

export function CallsPage({ params }: { params: URLSearchParams }) {
  const client = params.get('client') ?? '';
  const call = params.get('call');
  return (
    <>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Choose a client">
        <ClientPicker value={client} onChange={(id) => navigate(href('calls', { client: id }))} />
      </form>
      {!client ? (
        <Empty>Choose a client to see its calls and calling settings.</Empty>
      ) : call ? (
        <CallView client={client} id={call} />
      ) : (
        <WithClient id={client}>
          {() => (
            <>
              <CallList client={client} />
              <Settings client={client} />
            </>
          )}
        </WithClient>
      )}
    </>
  );
}
