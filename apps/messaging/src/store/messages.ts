import type { Queryable } from '@gateway/store';

/**
 * Life of an outbound message: `accepted` → `sent` → `delivered` → `read` → `played` (a voice message listened
 * to); `failed` from any state. `delivered` may never come (delivered and read at once, reference §7.6).
 */
export const MESSAGE_STATUSES = ['accepted', 'sent', 'delivered', 'read', 'played', 'failed'] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** The provider's conversation of a status (reference 7.6): absent under per-message pricing. */
export interface Conversation {
  id: string;
  origin_type: string | null;
  /** ISO 8601; usually only on `sent`. */
  expires_at: string | null;
}

export interface Pricing {
  category: string | null;
  billable: boolean | null;
  pricing_model: string | null;
  type: string | null;
}

/** What a status update says besides the status: the errors of a `failed` one, its conversation and pricing. */
export interface StatusInfo {
  errors?: unknown[];
  conversation?: Conversation;
  pricing?: Pricing;
}

export interface StatusChange extends StatusInfo {
  status: MessageStatus;
  /** ISO 8601 */
  at: string;
}

/** The provider endpoint a send went to (provider-2026.md §3): the Cloud API's /messages or /marketing_messages. */
export type SendApi = 'cloud_api' | 'marketing_messages';

export interface MessageRecord {
  id: string;
  tenant_id: string;
  client_id: string;
  /** The phone number the send named, or null when it named only a BSUID. */
  to: string | null;
  /** The business-scoped user id (or parent BSUID) the send named, if any. */
  recipient: string | null;
  api: SendApi;
  kind: string;
  /** An inbound message is `received` (it has no other status). */
  status: MessageStatus | 'received';
  status_history: StatusChange[];
  /** The provider's errors of the failure, once `failed`. */
  errors: unknown[] | null;
  /** The latest conversation and pricing any status update carried. */
  conversation: Conversation | null;
  pricing: Pricing | null;
  created_at: Date;
  updated_at: Date;
  /** Issue 27 (store/conversations.ts): `in` for a message a user sent, `out` for a send or an echo. */
  direction: 'in' | 'out';
  contact_id: string | null;
  /** Who wrote an inbound message (its `from`, or `from_user_id` without a phone). */
  from: string | null;
  /** A text body, caption, reply title, emoji or system message body. */
  text: string | null;
  /** The provider's message object of an inbound message. */
  content: unknown;
  /** The message it replies or reacts to. */
  context_id: string | null;
}

export interface NewMessage {
  /** The provider's message id. */
  id: string;
  tenantId: string;
  clientId: string;
  to?: string;
  recipient?: string;
  /** Default `cloud_api`. */
  api?: SendApi;
  kind: string;
  at?: Date;
  /** The text of the send (its text, caption or template name) for the message log (issue 27). */
  text?: string;
}

/**
 * Outbound message records, owned by the messaging service. The SQL implementation runs on PGlite and
 * PostgreSQL; another backend can implement the same interface.
 */
export interface MessageRepository {
  /** Stores a message the provider accepted (status `accepted`); a second insert of the same id changes nothing. */
  insertAccepted(m: NewMessage): Promise<void>;
  /** A message of this tenant's client, or undefined (also when it belongs to another tenant or client). */
  get(tenantId: string, clientId: string, id: string): Promise<MessageRecord | undefined>;
  /**
   * Applies a provider status update. The status only moves forward (`accepted` → `sent` → `delivered` →
   * `read`, `failed` from any state, nothing after `failed`), whatever order updates arrive in; every update
   * is appended to `status_history` unless the same entry (status, at, errors) is already there.
   * One SQL statement: concurrent updates of one message serialise on its row and none is lost.
   * Returns true when the message is known (the update was applied, or was stale or a duplicate and so
   * changed nothing), false when no message has this id (yet): the caller may retry later.
   */
  advanceStatus(
    messageId: string,
    status: Exclude<MessageStatus, 'accepted'>,
    at: Date,
    errors?: unknown[],
    info?: Omit<StatusInfo, 'errors'>,
  ): Promise<boolean>;
  /**
   * A provider status update from the webhook: applied now when the message is known, otherwise kept and
   * applied when the send that it overtook is stored. Returns whether the message is known now.
   */
  recordStatus(
    messageId: string,
    status: Exclude<MessageStatus, 'accepted'>,
    at: Date,
    errors?: unknown[],
    info?: Omit<StatusInfo, 'errors'>,
  ): Promise<boolean>;
  /**
   * Many provider status updates at once (the inbound router's group commit): each as `recordStatus` would
   * apply it, in a few multi-row statements. Answers, for each update in order, the message's owner and status
   * after it, or undefined when the message is not known (yet: the update is kept).
   */
  recordStatuses(updates: StatusUpdateInput[]): Promise<Array<StatusOwner | undefined>>;
  /**
   * Applies updates that overtook the send. Called after the transaction that inserted the message has
   * committed: then either recordStatus's second UPDATE saw the message, or this SELECT sees its kept row.
   */
  applyEarlyStatuses(messageId: string): Promise<void>;
  /** Drops kept updates older than the given age (messages never sent through the gateway). */
  purgeEarlyStatuses(olderThanMs: number): Promise<number>;
}

/** One provider status update of a message. */
export interface StatusUpdateInput extends StatusInfo {
  messageId: string;
  status: Exclude<MessageStatus, 'accepted'>;
  at: Date;
}

/** Whose message a status update changed, and its status after it (what the live stream is told). */
export interface StatusOwner {
  tenant_id: string;
  client_id: string;
  contact_id: string | null;
  status: string;
}

/** The history entry of a status update (the same entry twice is kept once). */
function statusEntry(status: Exclude<MessageStatus, 'accepted'>, at: Date, errors?: unknown[], info: Omit<StatusInfo, 'errors'> = {}): StatusChange {
  if (!MESSAGE_STATUSES.includes(status) || status === ('accepted' as string)) throw new Error(`invalid message status ${status}`);
  return {
    status,
    at: at.toISOString(),
    ...(errors?.length ? { errors } : {}),
    ...(info.conversation ? { conversation: info.conversation } : {}),
    ...(info.pricing ? { pricing: info.pricing } : {}),
  };
}

/**
 * `advanceStatus` for many messages in one statement (each message at most once: an UPDATE … FROM applies one
 * row of the list per message). Answers the owner of each message it found.
 */
async function advanceMany(q: Queryable, updates: StatusUpdateInput[]): Promise<Map<string, StatusOwner>> {
  const list = updates.map((u) => ({
    id: u.messageId,
    status: u.status,
    entry: statusEntry(u.status, u.at, u.errors, u),
    errors: u.errors?.length ? u.errors : null,
    conversation: u.conversation ?? null,
    pricing: u.pricing ?? null,
  }));
  // the same SET expressions as advanceStatus: re-evaluated on the latest row version under concurrency
  const rows = await q.query<StatusOwner & { id: string }>(
    `UPDATE messages AS m SET
       status = CASE WHEN array_position($2::text[], v.status) > array_position($2::text[], m.status) THEN v.status ELSE m.status END,
       status_history = CASE WHEN EXISTS (SELECT 1 FROM jsonb_array_elements(m.status_history) AS h(e) WHERE h.e = v.entry)
         THEN m.status_history ELSE m.status_history || jsonb_build_array(v.entry) END,
       updated_at = CASE WHEN EXISTS (SELECT 1 FROM jsonb_array_elements(m.status_history) AS h(e) WHERE h.e = v.entry)
         THEN m.updated_at ELSE now() END,
       errors = CASE WHEN v.status = 'failed' AND v.errors IS NOT NULL THEN v.errors ELSE m.errors END,
       conversation = COALESCE(v.conversation, m.conversation),
       pricing = COALESCE(v.pricing, m.pricing)
     FROM jsonb_to_recordset($1::jsonb) AS v(id text, status text, entry jsonb, errors jsonb, conversation jsonb, pricing jsonb)
     WHERE m.id = v.id AND m.id = ANY($3::text[])
     RETURNING m.id, m.tenant_id, m.client_id, m.contact_id, m.status`,
    // the ids again as an array: the messages are found by their primary key, never by a scan joined to the list
    [JSON.stringify(list), MESSAGE_STATUSES, list.map((u) => u.id)],
  );
  return new Map(rows.map(({ id, ...owner }) => [id, owner]));
}

/** Rows per INSERT of `insertAccepted`: 11 parameters a row, well under PostgreSQL's 65,535 a statement. */
export const INSERT_ROWS = 1000;

/** A write made by the same statement as the INSERT, before it (a data-modifying WITH): its text uses $1–$n of `params`. */
export interface WriteBefore {
  text: string;
  params: unknown[];
}

/**
 * Stores sends the provider accepted (status `accepted`) in one statement; an id stored before changes nothing.
 * With `contacts` (message id → its contact, `SqlConversations.contactsForSends`) each send is stored with its
 * contact and its text at once, one write of its row (linking it after the insert wrote every row twice: an
 * UPDATE of `contact_id` moves the row in each of the table's indexes); an id stored before without a contact
 * gets it, as `linkSends` would give it.
 */
export async function insertAccepted(q: Queryable, batch: NewMessage[], contacts?: Map<string, string>, before?: WriteBefore): Promise<void> {
  // one statement: the write before it and the rows are atomic without a transaction, as the caller counts on
  if (before && batch.length > INSERT_ROWS) throw new Error(`a write before the INSERT needs at most ${INSERT_ROWS} rows, not ${batch.length}`);
  // a campaign's batch larger than one statement goes in parts (an id twice in two parts meets ON CONFLICT, as a retry does)
  for (let i = 0; i < batch.length; i += INSERT_ROWS) await insertRows(q, batch.slice(i, i + INSERT_ROWS), contacts, before);
}

async function insertRows(q: Queryable, batch: NewMessage[], contacts?: Map<string, string>, before?: WriteBefore): Promise<void> {
  // a VALUES list, not arrays: PostgreSQL parses an array literal (array_in) at twice the CPU of the same values
  // as parameters at the batch sizes sends come in (1-10); each batch size is one text, prepared once it is frequent
  const seen = new Set<string>();
  const params: unknown[] = before ? [...before.params] : [];
  const rows: string[] = [];
  for (const m of batch) {
    // one row per id: a second one would be a conflict of the statement with itself
    if (seen.has(m.id)) continue;
    seen.add(m.id);
    const at = m.at ?? new Date();
    const history: StatusChange[] = [{ status: 'accepted', at: at.toISOString() }];
    const contact = contacts?.get(m.id);
    const b = params.length;
    params.push(
      m.id,
      m.tenantId,
      m.clientId,
      m.to ?? null,
      m.kind,
      JSON.stringify(history),
      at,
      m.recipient ?? null,
      m.api ?? 'cloud_api',
      contact ?? null,
      // the text goes in with the contact (as linkSends writes it)
      contact ? (m.text?.slice(0, 4096) ?? null) : null,
    );
    rows.push(
      `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, 'accepted', $${b + 6}::jsonb, $${b + 7}::timestamptz, $${b + 7}::timestamptz, $${b + 8}, $${b + 9}, $${b + 10}, $${b + 11})`,
    );
  }
  await q.query(
    `${before ? `WITH before AS (${before.text}) ` : ''}INSERT INTO messages (id, tenant_id, client_id, to_number, kind, status, status_history, created_at, updated_at, recipient, api, contact_id, text_body)
     VALUES ${rows.join(', ')}
     ON CONFLICT (id) DO ${
       contacts
         ? `UPDATE SET contact_id = EXCLUDED.contact_id, text_body = COALESCE(messages.text_body, EXCLUDED.text_body)
            WHERE messages.contact_id IS NULL AND EXCLUDED.contact_id IS NOT NULL`
         : 'NOTHING'
     }`,
    params,
  );
}

export interface MessageRow extends Omit<MessageRecord, 'to' | 'from' | 'text' | 'status_history'> {
  to_number: string | null;
  from_id: string | null;
  text_body: string | null;
  status_history: StatusChange[];
}

/** A row of `messages` as its record: the history in the provider's time order after our own `accepted`. */
export function recordOf(row: MessageRow): MessageRecord {
  const { to_number, from_id, text_body, ...rest } = row;
  // kept in arrival order (updates are handled concurrently and arrive out of order); read in the provider's
  // time order after our own `accepted` (the provider stamps whole seconds, so ties go in lifecycle order)
  const rank = (st: MessageStatus) => MESSAGE_STATUSES.indexOf(st);
  const key = (h: StatusChange) => (h.status === 'accepted' ? -Infinity : Date.parse(h.at));
  const history = [...rest.status_history].sort((a, b) => key(a) - key(b) || rank(a.status) - rank(b.status));
  const { position_at: _, ...record } = rest as typeof rest & { position_at?: string };
  return { ...record, status_history: history, to: to_number, from: from_id ?? null, text: text_body ?? null, direction: rest.direction ?? 'out' };
}

export class SqlMessageRepository implements MessageRepository {
  constructor(private readonly q: Queryable) {}

  insertAccepted(m: NewMessage): Promise<void> {
    return insertAccepted(this.q, [m]);
  }

  async applyEarlyStatuses(messageId: string): Promise<void> {
    const early = await this.q.query<{
      status: Exclude<MessageStatus, 'accepted'>;
      at: Date;
      errors: unknown[] | null;
      conversation: Conversation | null;
      pricing: Pricing | null;
    }>('SELECT status, at, errors, conversation, pricing FROM early_statuses WHERE message_id = $1 ORDER BY at', [messageId]);
    for (const e of early) {
      await this.advanceStatus(messageId, e.status, new Date(e.at), e.errors ?? undefined, {
        conversation: e.conversation ?? undefined,
        pricing: e.pricing ?? undefined,
      });
    }
    if (early.length) await this.q.query('DELETE FROM early_statuses WHERE message_id = $1', [messageId]);
  }

  async recordStatus(
    messageId: string,
    status: Exclude<MessageStatus, 'accepted'>,
    at: Date,
    errors?: unknown[],
    info: Omit<StatusInfo, 'errors'> = {},
  ): Promise<boolean> {
    const [owner] = await this.recordStatuses([{ messageId, status, at, errors, ...info }]);
    return owner !== undefined;
  }

  async recordStatuses(updates: StatusUpdateInput[]): Promise<Array<StatusOwner | undefined>> {
    const owners: Array<StatusOwner | undefined> = new Array(updates.length);
    // rounds in which each message appears once (an UPDATE … FROM applies one list row per message); the
    // order of a message's updates does not matter: statuses only move forward and the history dedupes
    const rounds: number[][] = [];
    const seen = new Map<string, number>();
    updates.forEach((u, i) => {
      const n = seen.get(u.messageId) ?? 0;
      seen.set(u.messageId, n + 1);
      (rounds[n] ??= []).push(i);
    });
    for (const round of rounds) {
      const batch = round.map((i) => updates[i]);
      // The usual case, a known message: one UPDATE. Otherwise the update is kept, then applied once more:
      // either that second UPDATE sees a message committed meanwhile, or applyEarlyStatuses (run after that
      // commit, hence after this kept row) sees the row. Applying twice is harmless, the history dedupes entries.
      const found = await advanceMany(this.q, batch);
      const early = batch.filter((u) => !found.has(u.messageId));
      if (early.length) {
        const params: unknown[] = [];
        const rows = early.map((u) => {
          params.push(
            u.messageId,
            u.status,
            u.at,
            u.errors?.length ? JSON.stringify(u.errors) : null,
            u.conversation ? JSON.stringify(u.conversation) : null,
            u.pricing ? JSON.stringify(u.pricing) : null,
          );
          const b = params.length - 6;
          return `($${b + 1}, $${b + 2}, $${b + 3}::timestamptz, $${b + 4}::jsonb, $${b + 5}::jsonb, $${b + 6}::jsonb)`;
        });
        await this.q.query(
          `INSERT INTO early_statuses (message_id, status, at, errors, conversation, pricing) VALUES ${rows.join(', ')} ON CONFLICT DO NOTHING`,
          params,
        );
        // the check after the kept rows' commit as a read of the primary key: nearly always nothing is there (the
        // message is another gateway's, or its send has not committed yet), and the UPDATE it replaces cost three
        // times as much to plan on every batch of statuses not known yet (issue 29); the few found are updated
        const committed = await this.q.query<{ id: string }>('SELECT id FROM messages WHERE id = ANY($1::text[])', [early.map((u) => u.messageId)]);
        const ids = new Set(committed.map((r) => r.id));
        const again = ids.size
          ? await advanceMany(
              this.q,
              early.filter((u) => ids.has(u.messageId)),
            )
          : new Map<string, StatusOwner>();
        const known = early.filter((u) => again.has(u.messageId));
        if (known.length) {
          await this.q.query(
            'DELETE FROM early_statuses AS e USING unnest($1::text[], $2::text[], $3::timestamptz[]) AS k(id, status, at) WHERE e.message_id = k.id AND e.message_id = ANY($1::text[]) AND e.status = k.status AND e.at = k.at',
            [known.map((u) => u.messageId), known.map((u) => u.status), known.map((u) => u.at.toISOString())],
          );
        }
        for (const [id, owner] of again) found.set(id, owner);
      }
      for (const i of round) owners[i] = found.get(updates[i].messageId);
    }
    return owners;
  }

  async purgeEarlyStatuses(olderThanMs: number): Promise<number> {
    const rows = await this.q.query("DELETE FROM early_statuses WHERE received_at < now() - ($1::bigint * interval '1 millisecond') RETURNING message_id", [
      olderThanMs,
    ]);
    return rows.length;
  }

  async get(tenantId: string, clientId: string, id: string): Promise<MessageRecord | undefined> {
    const rows = await this.q.query<MessageRow>('SELECT * FROM messages WHERE id = $1 AND tenant_id = $2 AND client_id = $3', [id, tenantId, clientId]);
    return rows[0] ? recordOf(rows[0]) : undefined;
  }

  async advanceStatus(
    messageId: string,
    status: Exclude<MessageStatus, 'accepted'>,
    at: Date,
    errors?: unknown[],
    info: Omit<StatusInfo, 'errors'> = {},
  ): Promise<boolean> {
    const entry = statusEntry(status, at, errors, info);
    // Under concurrency PostgreSQL re-evaluates the SET expressions on the latest row version after the
    // competing update commits, so each update sees the others' history entries and the highest status.
    const rows = await this.q.query(
      `UPDATE messages AS m SET
         status = CASE WHEN array_position($3::text[], $2::text) > array_position($3::text[], m.status) THEN $2::text ELSE m.status END,
         status_history = CASE WHEN EXISTS (SELECT 1 FROM jsonb_array_elements(m.status_history) AS h(e) WHERE h.e = $4::jsonb)
           THEN m.status_history ELSE m.status_history || jsonb_build_array($4::jsonb) END,
         updated_at = CASE WHEN EXISTS (SELECT 1 FROM jsonb_array_elements(m.status_history) AS h(e) WHERE h.e = $4::jsonb)
           THEN m.updated_at ELSE now() END,
         errors = CASE WHEN $2::text = 'failed' AND $5::jsonb IS NOT NULL THEN $5::jsonb ELSE m.errors END,
         conversation = COALESCE($6::jsonb, m.conversation),
         pricing = COALESCE($7::jsonb, m.pricing)
       WHERE m.id = $1
       RETURNING m.id`,
      [
        messageId,
        status,
        MESSAGE_STATUSES,
        JSON.stringify(entry),
        errors?.length ? JSON.stringify(errors) : null,
        info.conversation ? JSON.stringify(info.conversation) : null,
        info.pricing ? JSON.stringify(info.pricing) : null,
      ],
    );
    return rows.length > 0;
  }
}
