import { get, type Message } from '../api';
import { Empty, Loaded, SectionHead, StatusBadge, Time } from '../components';
import { useLoad } from '../hooks';
import { href, navigate } from '../router';
import { ClientPicker } from './client-picker';

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
            <dl class="props">
              <dt>Id</dt>
              <dd class="wrap">{m.id}</dd>
              <dt>To</dt>
              <dd>{m.to}</dd>
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
        <ClientPicker value={client} onChange={(c) => navigate(href('messages', { client: c, id }), { replace: true })} />
        <input type="hidden" name="client" value={client} />
        <div class="field grow">
          <label for="message-id">Message id</label>
          <input id="message-id" name="message_id" defaultValue={id} key={id} required placeholder="wamid.…" />
        </div>
        <button type="submit" class="primary" disabled={!client}>
          Look up
        </button>
      </form>
      {client && id ? (
        <MessageView client={client} id={id} />
      ) : (
        <Empty>Choose a client and enter a message id (the X-Message-Id of a send) to see its status timeline.</Empty>
      )}
    </>
  );
}
