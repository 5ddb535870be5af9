import { useEffect, useState } from 'preact/hooks';
import { get, post, q, type Contact, type Conversation, type Message, type Template } from '../api';
import { Empty, Link, Loaded, Notice, SectionHead, StatusBadge, Time } from '../components';
import { useCursorPages, useLoad } from '../hooks';
import { CursorList, openColumn, type Column } from '../records';
import { href, navigate } from '../router';
import { ClientPicker } from './client-picker';

/** Who a contact is, in a few words: the profile name, else the number, else the BSUID or username. */
const who = (c: Contact) => c.profile_name ?? c.wa_id ?? c.username ?? c.user_id ?? c.id.slice(0, 8);

const conversationColumns = (client: string): Column<Conversation>[] => [
  { head: 'Contact', cell: (c) => who(c.contact) },
  {
    head: 'Last message',
    class: 'wrap',
    cell: (c) => (c.last_message ? `${c.last_message.direction === 'in' ? '' : 'You: '}${c.last_message.text ?? c.last_message.kind}` : '—'),
  },
  { head: 'When', cell: (c) => <Time at={c.contact.last_activity_at} /> },
  { head: 'Unread', cell: (c) => (c.unread ? <span class="badge badge-pending">{c.unread}</span> : '0') },
  { head: 'Window', cell: (c) => (c.contact.window_open ? 'open' : 'closed') },
  openColumn(
    (c) => href('inbox', { client, contact: c.contact.id }),
    (c) => `Open the conversation with ${who(c.contact)}`,
  ),
];

/** The {{n}} variables of a template's body, in order. */
function bodyVariables(t: Template): string[] {
  const body = (t.components as Array<{ type?: string; text?: string }>).find((c) => c.type === 'BODY');
  return [...new Set([...(body?.text ?? '').matchAll(/\{\{\s*([\w]+)\s*\}\}/g)].map((m) => m[1]))];
}

/** The media kinds the provider takes, by MIME type (docs/media.md): what an uploaded file is sent as. */
function mediaTypeOf(mime: string): 'image' | 'video' | 'audio' | 'sticker' | 'document' {
  if (mime === 'image/webp') return 'sticker';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('audio/')) return 'audio';
  return 'document';
}

/** What the compose box's file input offers: the provider's image, document, video and audio types. */
const ATTACHABLE = [
  'image/jpeg',
  'image/png',
  'application/pdf',
  'text/plain',
  '.doc',
  '.docx',
  '.xls',
  '.xlsx',
  '.ppt',
  '.pptx',
  'video/mp4',
  'video/3gpp',
  'audio/aac',
  'audio/mpeg',
  'audio/mp4',
  'audio/ogg',
].join(',');

/**
 * The compose box: free text, or a file (uploaded with POST /api/media, then sent by its media id as the matching
 * kind, the text as its caption) while the 24-hour window is open; once it is closed, the client's approved
 * templates with their body variables (the provider refuses free text then).
 */
function Compose({ client, contact, onSent }: { client: string; contact: Contact; onSent: () => void }) {
  const [state, setState] = useState<{ busy?: string; ok?: string; error?: string }>({});
  const [templateId, setTemplateId] = useState('');
  const [templates] = useLoad(
    () =>
      contact.window_open
        ? Promise.resolve({ data: [] as Template[] })
        : get<{ data: Template[] }>(`/api/templates${q({ client_id: client, status: 'APPROVED', limit: 100 })}`),
    [client, contact.window_open],
  );
  // the number when the user shares it, else the BSUID (a username adopter)
  const recipient = contact.wa_id ? { to: `+${contact.wa_id}` } : { recipient: contact.user_id ?? '' };
  const send = async (path: string, body: Record<string, unknown>, form: HTMLFormElement) => {
    setState({ busy: 'Sending…' });
    try {
      await post(path, { client_id: client, ...recipient, ...body });
      form.reset();
      setState({ ok: 'Sent.' });
      onSent();
    } catch (err) {
      setState({ error: (err as Error).message });
    }
  };
  const submitText = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const text = String(data.get('text') ?? '').trim();
    const file = data.get('file');
    if (!(file instanceof File) || !file.size) {
      if (text) void send('/api/messaging/send-text', { text }, form);
      else setState({ error: 'Write a message or attach a file.' });
      return;
    }
    setState({ busy: 'Uploading…' });
    let media: { id: string; mime_type: string };
    try {
      const upload = new FormData();
      upload.append('client_id', client);
      upload.append('file', file, file.name);
      media = await post<{ id: string; mime_type: string }>('/api/media', upload);
    } catch (err) {
      setState({ error: `The file could not be uploaded: ${(err as Error).message}` });
      return;
    }
    const type = mediaTypeOf(media.mime_type);
    await send(
      '/api/messaging/send-media',
      {
        type,
        media_id: media.id,
        ...(text && type !== 'audio' && type !== 'sticker' ? { caption: text } : {}),
        ...(type === 'document' ? { filename: file.name } : {}),
      },
      form,
    );
  };
  const submitTemplate = (e: Event, t: Template) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const f = new FormData(form);
    const vars = bodyVariables(t);
    const named = t.parameter_format === 'NAMED';
    const parameters = vars.map((v) => ({ type: 'text', text: String(f.get(`var-${v}`) ?? ''), ...(named ? { parameter_name: v } : {}) }));
    void send(
      '/api/messaging/send-template',
      { template_name: t.name, lang: t.language, ...(vars.length ? { components: [{ type: 'body', parameters }] } : {}) },
      form,
    );
  };
  if (contact.window_open)
    return (
      <form class="card" onSubmit={(e) => void submitText(e)} aria-labelledby="compose-title">
        <h3 id="compose-title">Reply</h3>
        <div class="field">
          <label for="compose-text">Message (the 24-hour window is open until {new Date(contact.window_open_until ?? '').toLocaleString()})</label>
          <textarea id="compose-text" name="text" rows={3} maxLength={4096} aria-describedby="compose-hint" />
        </div>
        <div class="field">
          <label for="compose-file">Attach an image or document (optional)</label>
          <input id="compose-file" name="file" type="file" accept={ATTACHABLE} aria-describedby="compose-hint" />
        </div>
        <p id="compose-hint" class="muted">
          A file is sent as an image, document, video or audio message by its type, with the message as its caption.
        </p>
        <button type="submit" class="primary" disabled={!!state.busy}>
          {state.busy ?? 'Send'}
        </button>
        <Notice ok={state.ok} error={state.error} />
      </form>
    );
  return (
    <section class="card" aria-labelledby="compose-title">
      <h3 id="compose-title">Reply with a template</h3>
      <p class="muted">The 24-hour window is closed: only an approved template can start the conversation again.</p>
      <Loaded load={templates} what="the approved templates">
        {(page) => {
          const t = page.data.find((x) => x.id === templateId);
          return page.data.length === 0 ? (
            <Empty>
              No approved template. <Link href={href('templates', { client })}>Create one</Link>.
            </Empty>
          ) : (
            <form onSubmit={(e) => t && submitTemplate(e, t)}>
              <div class="field">
                <label for="compose-template">Template</label>
                <select id="compose-template" value={templateId} onChange={(e) => setTemplateId((e.currentTarget as HTMLSelectElement).value)} required>
                  <option value="">Choose a template</option>
                  {page.data.map((x) => (
                    <option key={x.id} value={x.id}>
                      {x.name} ({x.language})
                    </option>
                  ))}
                </select>
              </div>
              {t &&
                bodyVariables(t).map((v) => (
                  <div class="field" key={v}>
                    <label for={`var-${v}`}>Variable {`{{${v}}}`}</label>
                    <input id={`var-${v}`} name={`var-${v}`} required />
                  </div>
                ))}
              <button type="submit" class="primary" disabled={!t || !!state.busy}>
                {state.busy ?? 'Send template'}
              </button>
              <Notice ok={state.ok} error={state.error} />
            </form>
          );
        }}
      </Loaded>
    </section>
  );
}

/**
 * One conversation: the thread (newest last), kept current by the live stream (GET /api/stream: a message or status
 * of this contact reloads it), marked read when opened and when a message arrives while it is open.
 */
function Thread({ client, contactId }: { client: string; contactId: string }) {
  const [contact, reloadContact] = useLoad(() => get<Contact>(`/api/contacts/${contactId}${q({ client_id: client })}`), [client, contactId]);
  const [thread, reload] = useLoad(
    () => get<{ data: Message[] }>(`/api/conversations/${contactId}/messages${q({ client_id: client, limit: 50 })}`),
    [client, contactId],
  );
  const [live, setLive] = useState<'connecting' | 'live' | 'reconnecting'>('connecting');
  useEffect(() => {
    void post(`/api/conversations/${contactId}/read${q({ client_id: client })}`).catch(() => undefined);
    const source = new EventSource(`/api/stream${q({ client_id: client })}`);
    const onEvent = (e: MessageEvent<string>) => {
      const m = (JSON.parse(e.data) as { message: Message }).message;
      if (m.contact_id !== contactId) return;
      reload();
      if (m.direction === 'in') {
        reloadContact();
        void post(`/api/conversations/${contactId}/read${q({ client_id: client })}`).catch(() => undefined);
      }
    };
    source.addEventListener('message', onEvent);
    source.addEventListener('status', onEvent);
    source.onopen = () => setLive('live');
    source.onerror = () => setLive('reconnecting');
    return () => source.close();
  }, [client, contactId]);
  return (
    <section aria-labelledby="thread-title">
      <p>
        <Link href={href('inbox', { client })}>← All conversations</Link>
      </p>
      <Loaded load={contact} what="the contact" retry={reloadContact}>
        {(c) => (
          <>
            <SectionHead id="thread-title" title={`Conversation with ${who(c)}`}>
              <span class="muted" role="status">
                {live === 'live' ? 'Live' : live === 'connecting' ? 'Connecting…' : 'Reconnecting…'}
              </span>
            </SectionHead>
            <dl class="props">
              <dt>Phone</dt>
              <dd>{c.wa_id ?? '—'}</dd>
              <dt>BSUID</dt>
              <dd class="wrap">{c.user_id ?? '—'}</dd>
              <dt>Username</dt>
              <dd>{c.username ?? '—'}</dd>
              <dt>Window</dt>
              <dd>{c.window_open ? 'open' : 'closed'}</dd>
              <dt>Opted out</dt>
              <dd>
                {c.opted_out ? (
                  <>
                    yes ({c.opted_out_source}, <Time at={c.opted_out_at} />)
                  </>
                ) : (
                  'no'
                )}
              </dd>
            </dl>
            <Loaded load={thread} what="the thread" retry={reload}>
              {(page) =>
                page.data.length === 0 ? (
                  <Empty>No message yet.</Empty>
                ) : (
                  <ol class="thread" aria-label="Messages" aria-live="polite">
                    {[...page.data].reverse().map((m) => (
                      <li key={m.id} class={`bubble bubble-${m.direction}`} data-message-id={m.id}>
                        <span class="muted">{m.direction === 'in' ? who(c) : 'You'}</span>{' '}
                        <span class="wrap">{m.text ? `${m.kind === 'text' ? '' : `[${m.kind}] `}${m.text}` : `[${m.kind}]`}</span>{' '}
                        {m.reactions.map((r) => (
                          <span key={r.message_id} aria-label={`reaction ${r.emoji}`}>
                            {r.emoji}
                          </span>
                        ))}{' '}
                        <Time at={m.created_at} /> {m.direction === 'out' && <StatusBadge status={m.status} />}
                      </li>
                    ))}
                  </ol>
                )
              }
            </Loaded>
            <Compose client={client} contact={c} onSent={reload} />
          </>
        )}
      </Loaded>
    </section>
  );
}

/** The Inbox: a client's conversations by last activity, and one conversation with its live thread and compose box. */
function Conversations({ client }: { client: string }) {
  const list = useCursorPages<Conversation>('/api/conversations', { client_id: client });
  return (
    <section aria-labelledby="inbox-title">
      <SectionHead id="inbox-title" title="Conversations">
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </SectionHead>
      <CursorList
        list={list}
        what="conversations"
        empty="No conversation yet: a customer's first message starts one."
        columns={conversationColumns(client)}
        rowKey={(c) => c.contact.id}
        rowAttr="data-contact-id"
      />
    </section>
  );
}

export function InboxPage({ params }: { params: URLSearchParams }) {
  const client = params.get('client') ?? '';
  const contact = params.get('contact') ?? '';
  return (
    <>
      <div class="filters">
        <ClientPicker value={client} onChange={(c) => navigate(href('inbox', { client: c }), { replace: true })} />
      </div>
      {!client ? (
        <Empty>Choose a client to see its conversations.</Empty>
      ) : contact ? (
        <Thread client={client} contactId={contact} />
      ) : (
        <Conversations client={client} />
      )}
    </>
  );
}
