import { get, type Message } from '../api';
import { Empty, FilterSelect, Link, Loaded, SectionHead, StatusBadge, Time } from '../components';
import { useCursorPages, useLoad } from '../hooks';
import { CursorList, openColumn, type Column } from '../records';
import { href, navigate } from '../router';
import { ClientPicker } from './client-picker';

const DIRECTIONS = ['in', 'out'] as const;
const STATUSES = ['accepted', 'sent', 'delivered', 'read', 'played', 'failed', 'received'] as const;
const TYPES = [
  'text',
  'image',
  'document',
  'audio',
  'video',
  'sticker',
  'reaction',
  'interactive',
  'button',
  'location',
  'contacts',
  'template',
  'system',
] as const;

function MessageView({ client, id }: { client: string; id: string }) {
  const [load, reload] = useLoad(() => get<Message>(`/api/messages/${encodeURIComponent(id)}?client_id=${client}`), [client, id]);
  return (
    <section class="card" aria-labelledby="message-title">
      <Loaded load={load} what="the message" retry={reload}>
        {(m) => (
          <>
            <SectionHead id="message-title" title="Message" status={m.status}>
              <button type="button" onClick={reload}>
                Refresh
              </button>
            </SectionHead>
            <p>
              <Link href={href('messages', { client })}>← The message log of this client</Link>
            </p>
            <dl class="props">
              <dt>Id</dt>
              <dd class="wrap">{m.id}</dd>
              <dt>Direction</dt>
              <dd>{m.direction === 'in' ? 'inbound' : 'outbound'}</dd>
              <dt>{m.direction === 'in' ? 'From' : 'To'}</dt>
              <dd>{m.direction === 'in' ? m.from : m.to}</dd>
              {m.text !== null && (
                <>
                  <dt>Text</dt>
                  <dd class="wrap">{m.text}</dd>
                </>
              )}
              <dt>Kind</dt>
              <dd>{m.kind}</dd>
              <dt>Sent</dt>
              <dd>
                <Time at={m.created_at} />
              </dd>
            </dl>
            <h3>Status timeline</h3>
            <ol class="timeline">
              {m.status_history.map((h, i) => (
                <li key={i}>
                  <StatusBadge status={h.status} /> <Time at={h.at} />
                  {h.errors !== undefined && <pre class="code">{JSON.stringify(h.errors, null, 2)}</pre>}
                </li>
              ))}
            </ol>
          </>
        )}
      </Loaded>
    </section>
  );
}

const columns = (client: string): Column<Message>[] => [
  { head: 'Time', cell: (m) => <Time at={m.created_at} /> },
  { head: 'Direction', cell: (m) => (m.direction === 'in' ? 'in' : 'out') },
  { head: 'With', cell: (m) => (m.direction === 'in' ? m.from : m.to) },
  { head: 'Type', cell: (m) => m.kind },
  { head: 'Status', cell: (m) => <StatusBadge status={m.status} /> },
  { head: 'Text', class: 'wrap', cell: (m) => m.text ?? '—' },
  openColumn(
    (m) => href('messages', { client, id: m.id }),
    (m) => `Open the status timeline of message ${m.id.slice(-8)}`,
  ),
];

/** The message log (GET /api/messages) with its filters; each row opens its status timeline. */
function MessageLog({ client, params }: { client: string; params: URLSearchParams }) {
  const filters = { direction: params.get('direction') ?? '', status: params.get('status') ?? '', type: params.get('type') ?? '', q: params.get('q') ?? '' };
  const list = useCursorPages<Message>('/api/messages', { client_id: client, ...filters });
  const set = (k: string, v: string) => navigate(href('messages', { client, ...filters, [k]: v }), { replace: true });
  const search = (e: Event) => {
    e.preventDefault();
    set('q', String(new FormData(e.currentTarget as HTMLFormElement).get('q') ?? '').trim());
  };
  return (
    <section aria-labelledby="log-title">
      <SectionHead id="log-title" title="Message log">
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </SectionHead>
      <div class="filters">
        <FilterSelect id="log-direction" label="Direction" any="Both" options={DIRECTIONS} value={filters.direction} onChange={(v) => set('direction', v)} />
        <FilterSelect id="log-status" label="Status" any="Any status" options={STATUSES} value={filters.status} onChange={(v) => set('status', v)} />
        <FilterSelect id="log-type" label="Type" any="Any type" options={TYPES} value={filters.type} onChange={(v) => set('type', v)} />
        <form class="field grow" onSubmit={search} role="search" aria-label="Search the text">
          <label for="log-q">Text</label>
          <input id="log-q" name="q" defaultValue={filters.q} key={filters.q} placeholder="words of the text" />
        </form>
      </div>
      <CursorList
        list={list}
        what="messages"
        empty={Object.values(filters).some(Boolean) ? 'No message matches these filters.' : 'No message yet: sends and what customers write appear here.'}
        columns={columns(client)}
        rowKey={(m) => m.id}
        rowAttr="data-message-id"
      />
    </section>
  );
}

export function MessagesPage({ params }: { params: URLSearchParams }) {
  const client = params.get('client') ?? '';
  const id = params.get('id') ?? '';
  const submit = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    navigate(href('messages', { client: String(f.get('client') ?? ''), id: String(f.get('message_id') ?? '').trim() }));
  };
  return (
    <>
      <form class="filters" onSubmit={submit} aria-label="Look up a message">
        <ClientPicker value={client} onChange={(c) => navigate(href('messages', { client: c }), { replace: true })} />
        <input type="hidden" name="client" value={client} />
        <div class="field grow">
          <label for="message-id">Message id</label>
          <input id="message-id" name="message_id" defaultValue={id} key={id} placeholder="wamid.…" />
        </div>
        <button type="submit" class="primary" disabled={!client}>
          Look up
        </button>
      </form>
      {client && id ? (
        <MessageView client={client} id={id} />
      ) : client ? (
        <MessageLog client={client} params={params} />
      ) : (
        <Empty>Choose a client to see its message log, or enter a message id (the X-Message-Id of a send) to see its status timeline.</Empty>
      )}
    </>
  );
}
