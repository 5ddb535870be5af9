import { useState } from 'preact/hooks';
import { patch, post, type Client } from '../api';
import { CopyField, Link, SectionHead, StatusBadge, Time, signupLabel } from '../components';
import { useCursorPages } from '../hooks';
import { CursorList, type Column } from '../records';
import { href } from '../router';
import { ClientDetail } from './client-detail';

const orNull = (v: FormDataEntryValue | null) => (typeof v === 'string' && v.trim() ? v.trim() : null);

function CreateClient({ onCreated }: { onCreated: (c: Client) => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const body: Record<string, string> = { display_name: String(f.get('display_name') ?? '').trim() };
    for (const k of ['external_id', 'webhook_url'] as const) {
      const v = orNull(f.get(k));
      if (v) body[k] = v;
    }
    setBusy(true);
    setError(null);
    try {
      const c = await post<Client>('/api/clients/', body);
      form.reset();
      onCreated(c);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="create-title">
      <h2 id="create-title">New pending client</h2>
      <p class="muted">A pending client waits for its business to finish the embedded signup through the link it gets.</p>
      <div class="grid">
        <div class="field">
          <label for="new-display-name">Display name</label>
          <input id="new-display-name" name="display_name" required maxLength={200} />
        </div>
        <div class="field">
          <label for="new-external-id">External id (optional)</label>
          <input id="new-external-id" name="external_id" maxLength={255} />
        </div>
        <div class="field">
          <label for="new-webhook-url">Webhook URL (optional)</label>
          <input id="new-webhook-url" name="webhook_url" type="url" placeholder="https://…" />
        </div>
      </div>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Creating…' : 'Create client'}
      </button>
    </form>
  );
}

function EditClient({ client, onSaved, onCancel }: { client: Client; onSaved: (c: Client) => void; onCancel: () => void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(null);
    try {
      // only what changed: re-sending the same webhook URL is not a change (a new one also enables a disabled webhook)
      const next = {
        display_name: String(f.get('display_name') ?? '').trim(),
        external_id: orNull(f.get('external_id')),
        webhook_url: orNull(f.get('webhook_url')),
      };
      const changed = Object.fromEntries(Object.entries(next).filter(([k, v]) => client[k as keyof typeof next] !== v));
      onSaved(Object.keys(changed).length ? await patch<Client>(`/api/clients/${client.id}`, changed) : client);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="edit-title">
      <h2 id="edit-title">Edit {client.display_name}</h2>
      <div class="grid">
        <div class="field">
          <label for="edit-display-name">Display name</label>
          <input id="edit-display-name" name="display_name" required maxLength={200} defaultValue={client.display_name} autoFocus />
        </div>
        <div class="field">
          <label for="edit-external-id">External id</label>
          <input id="edit-external-id" name="external_id" maxLength={255} defaultValue={client.external_id ?? ''} />
        </div>
        <div class="field">
          <label for="edit-webhook-url">Webhook URL (empty: the tenant's)</label>
          <input id="edit-webhook-url" name="webhook_url" type="url" defaultValue={client.webhook_url ?? ''} aria-describedby="edit-webhook-hint" />
          <span id="edit-webhook-hint" class="muted">
            The next delivery uses a changed URL.
          </span>
        </div>
      </div>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save changes'}
        </button>
      </div>
    </form>
  );
}

export function ClientsPage({ params }: { params: URLSearchParams }) {
  const client = params.get('client');
  return client ? <ClientDetail id={client} /> : <ClientList />;
}

const columns = (act: { edit: (c: Client) => void; sendTest: (c: Client) => void }): Column<Client>[] => [
  { head: 'Name', rowHeader: true, cell: (c) => <Link href={href('clients', { client: c.id })}>{c.display_name}</Link> },
  { head: 'Status', cell: (c) => <StatusBadge status={signupLabel(c)} /> },
  {
    head: 'Webhook',
    cell: (c) => (
      <>
        <StatusBadge status={c.webhook_status === 'disabled' ? 'disabled' : 'active'} />
        {c.webhook_events.length > 0 && <div class="muted small">only {c.webhook_events.join(', ')}</div>}
      </>
    ),
  },
  { head: 'Phone number id', cell: (c) => c.phone_number_id ?? <span class="muted">—</span> },
  { head: 'External id', cell: (c) => c.external_id ?? <span class="muted">—</span> },
  { head: 'Webhook URL', class: 'wrap', cell: (c) => c.webhook_url ?? <span class="muted">tenant's</span> },
  { head: 'Created', cell: (c) => <Time at={c.created_at} /> },
  {
    head: 'Actions',
    class: 'row-actions',
    cell: (c) => (
      <>
        <button type="button" onClick={() => act.edit(c)} aria-label={`Edit ${c.display_name}`}>
          Edit
        </button>
        <button type="button" onClick={() => act.sendTest(c)} aria-label={`Send test event to ${c.display_name}`}>
          Send test event
        </button>
        <Link href={href('clients', { client: c.id })} aria-label={`Webhook settings of ${c.display_name}`}>
          Webhook
        </Link>
        <Link href={href('deliveries', { client: c.id })} aria-label={`Deliveries of ${c.display_name}`}>
          Deliveries
        </Link>
        {!c.is_active && c.embed_signup_url && (
          <a href={c.embed_signup_url} target="_blank" rel="noopener noreferrer" aria-label={`Signup link of ${c.display_name}`}>
            Signup link
          </a>
        )}
      </>
    ),
  },
];

function ClientList() {
  const list = useCursorPages<Client>('/api/clients');
  const [created, setCreated] = useState<Client | null>(null);
  const [editing, setEditing] = useState<Client | null>(null);
  const [notice, setNotice] = useState<{ text: string; client?: string; error?: boolean } | null>(null);

  const sendTest = async (c: Client) => {
    setNotice({ text: `Sending a test event to ${c.display_name}…` });
    try {
      const r = await post<{ event_id: string; delivery_id: string }>(`/api/clients/${c.id}/webhook/test`);
      setNotice({ text: `Test event sent to ${c.display_name} (delivery ${r.delivery_id.slice(0, 8)}).`, client: c.id });
    } catch (err) {
      setNotice({ text: `The test event to ${c.display_name} was not sent: ${(err as Error).message}`, error: true });
    }
  };

  return (
    <>
      <CreateClient
        onCreated={(c) => {
          setCreated(c);
          list.reload();
        }}
      />
      {created && created.embed_signup_url && (
        <section class="card success" aria-labelledby="created-title">
          <h2 id="created-title">{created.display_name} is waiting for its signup</h2>
          <CopyField id="created-link" label="Embedded signup link" value={created.embed_signup_url} />
          <p>
            <a href={created.embed_signup_url} target="_blank" rel="noopener noreferrer">
              Open the signup page
            </a>{' '}
            <span class="muted">(in a new tab)</span>
          </p>
        </section>
      )}
      {editing && (
        <EditClient
          key={editing.id}
          client={editing}
          onCancel={() => setEditing(null)}
          onSaved={(c) => {
            setEditing(null);
            setNotice({ text: `Saved ${c.display_name}.` });
            list.reload();
          }}
        />
      )}
      <div aria-live="polite" role="status" class="notice-slot">
        {notice && (
          <p class={notice.error ? 'error-text' : 'notice'}>
            {notice.text} {notice.client && <Link href={href('deliveries', { client: notice.client })}>View its deliveries</Link>}
          </p>
        )}
      </div>
      <section aria-labelledby="list-title">
        <SectionHead id="list-title" title="All clients">
          <button type="button" onClick={list.reload}>
            Refresh
          </button>
        </SectionHead>
        <CursorList
          list={list}
          what="clients"
          empty="No clients yet. Create one above; it gets an embedded signup link to send to the business."
          columns={columns({ edit: setEditing, sendTest })}
          rowKey={(c) => c.id}
          rowAttr="data-client-id"
        />
      </section>
    </>
  );
}
