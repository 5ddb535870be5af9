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
   * Applies updates that overtook the send. Called after the transaction that inserted the message has
   * committed: then either recordStatus's second UPDATE saw the message, or this SELECT sees its kept row.
   */
  applyEarlyStatuses(messageId: string): Promise<void>;
  /** Drops kept updates older than the given age (messages never sent through the gateway). */
  purgeEarlyStatuses(olderThanMs: number): Promise<number>;
}

/** Stores sends the provider accepted (status `accepted`) in one statement; an id stored before changes nothing. */
export async function insertAccepted(q: Queryable, batch: NewMessage[]): Promise<void> {
  const params: unknown[] = [];
  const rows = batch.map((m, i) => {
    const at = m.at ?? new Date();
    const history: StatusChange[] = [{ status: 'accepted', at: at.toISOString() }];
    params.push(m.id, m.tenantId, m.clientId, m.to ?? null, m.kind, JSON.stringify(history), at, m.recipient ?? null, m.api ?? 'cloud_api');
    const b = i * 9;
    return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, 'accepted', $${b + 6}::jsonb, $${b + 7}::timestamptz, $${b + 7}::timestamptz, $${b + 8}, $${b + 9})`;
  });
  await q.query(
    `INSERT INTO messages (id, tenant_id, client_id, to_number, kind, status, status_history, created_at, updated_at, recipient, api) VALUES ${rows.join(', ')} ON CONFLICT (id) DO NOTHING`,
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
    // The usual case, a known message: one UPDATE. Otherwise the update is kept, then applied once more:
    // either that second UPDATE sees a message committed meanwhile, or applyEarlyStatuses (run after that
    // commit, hence after this kept row) sees the row. Applying twice is harmless, the history dedupes entries.
    if (await this.advanceStatus(messageId, status, at, errors, info)) return true;
    await this.q.query(
      'INSERT INTO early_statuses (message_id, status, at, errors, conversation, pricing) VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb) ON CONFLICT DO NOTHING',
      [
        messageId,
        status,
        at,
        errors?.length ? JSON.stringify(errors) : null,
        info.conversation ? JSON.stringify(info.conversation) : null,
        info.pricing ? JSON.stringify(info.pricing) : null,
      ],
    );
    const known = await this.advanceStatus(messageId, status, at, errors, info);
    if (known) await this.q.query('DELETE FROM early_statuses WHERE message_id = $1 AND status = $2 AND at = $3', [messageId, status, at]);
    return known;
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
    if (!MESSAGE_STATUSES.includes(status) || status === ('accepted' as string)) throw new Error(`invalid message status ${status}`);
    const entry: StatusChange = {
      status,
      at: at.toISOString(),
      ...(errors?.length ? { errors } : {}),
      ...(info.conversation ? { conversation: info.conversation } : {}),
      ...(info.pricing ? { pricing: info.pricing } : {}),
    };
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
