import { randomUUID } from 'node:crypto';
import { decodePosition, encodePosition, takePage, type Queryable } from '@gateway/store';
import { recordOf, type MessageRecord, type MessageRow, type NewMessage, type WriteBefore } from './messages';

/**
 * The message log, contacts and conversations of issue 27 (docs/conversations.md), in messaging's own tables:
 * `messages` holds inbound messages beside the sends (direction `in`), each message names its contact, and a
 * contact keeps every identity the provider gave (`contact_identities`: phone `wa_id`, BSUID `user_id`).
 */

/**
 * A client's identities among (kind, value) pairs ($1 the client, $2 the kinds, $3 the values): one primary-key
 * probe per pair. Written as `(kind, value) IN (SELECT ... unnest ...)`, the planner chose by the table's
 * statistics, and statistics gathered while a client had few identities (a new client, the bench's first seconds)
 * gave a hash semi join over all of the client's rows: 0.6 ms a lookup at 10,000 contacts, a third of PostgreSQL's
 * statement time in the send row. The LIMIT keeps the subquery from being flattened into that join.
 */
export const IDENTITIES_OF = `SELECT t.k AS kind, t.v AS value, i.contact_id FROM unnest($2::text[], $3::text[]) AS t(k, v)
  CROSS JOIN LATERAL (SELECT contact_id FROM contact_identities WHERE client_id = $1 AND kind = t.k AND value = t.v LIMIT 1) i`;

/**
 * Contacts moved forward to their latest send of a batch not stored yet, each given its identity's fields again:
 * $1–$6 are `contactMoves`. Its own statement in `contactsForSends`; the first part of the sends' INSERT when every
 * contact is known (`knownContactsForSends`).
 */
const MOVE_CONTACTS = `UPDATE contacts c SET wa_id = COALESCE(v.wa_id, c.wa_id), user_id = COALESCE(v.user_id, c.user_id), parent_user_id = COALESCE(v.parent_user_id, c.parent_user_id),
    last_message_id = CASE WHEN v.at >= c.last_activity_at THEN v.message_id ELSE c.last_message_id END,
    last_activity_at = GREATEST(c.last_activity_at, v.at)
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) AS v(id, wa_id, user_id, parent_user_id, message_id, at)
  WHERE c.id = v.id`;

/** A send of a batch naming exactly one identity, with that identity. */
interface SingleSend {
  m: NewMessage;
  who: Identity;
  kind: string;
  value: string;
  at: Date;
}

const identityKey = (kind: string, value: string) => `${kind}\u0000${value}`;

/** The sends of a batch that name exactly one identity, by client, and those naming several (one naming none is not linked). */
function singlesByClient(batch: NewMessage[]): { byClient: Map<string, SingleSend[]>; several: NewMessage[] } {
  const byClient = new Map<string, SingleSend[]>();
  const several: NewMessage[] = [];
  for (const m of batch) {
    const who = sendIdentity(m);
    const ids = identitiesOf(who);
    if (ids.length !== 1) {
      if (ids.length) several.push(m);
      continue;
    }
    const list = byClient.get(m.clientId) ?? [];
    byClient.set(m.clientId, list);
    list.push({ m, who, ...ids[0], at: m.at ?? new Date() });
  }
  return { byClient, several };
}

/** The contact of each identity of a client that has one, by `identityKey` (IDENTITIES_OF: a probe per identity). */
async function contactsOfIdentities(q: Queryable, clientId: string, identities: Iterable<{ kind: string; value: string }>): Promise<Map<string, string>> {
  const unique = [...new Map([...identities].map((x) => [identityKey(x.kind, x.value), x])).values()];
  const found = await q.query<{ kind: string; value: string; contact_id: string }>(IDENTITIES_OF, [
    clientId,
    unique.map((x) => x.kind),
    unique.map((x) => x.value),
  ]);
  return new Map(found.map((f) => [identityKey(f.kind, f.value), f.contact_id]));
}

/** A contact, the identity a send of the batch named it by, and that send. */
interface ContactMove {
  id: string;
  who: Identity;
  last: { m: NewMessage; at: Date };
}

/** MOVE_CONTACTS's parameters: one row per contact, its latest send (the later one of equal times), in id order. */
function contactMoves(moves: ContactMove[]): unknown[] {
  const byContact = new Map<string, ContactMove>();
  for (const x of moves) {
    const had = byContact.get(x.id);
    if (!had || x.last.at.getTime() >= had.last.at.getTime()) byContact.set(x.id, x);
  }
  // in the contacts' order: batches written at once lock shared rows in one order
  const rows = [...byContact.values()].sort((a, b) => (a.id < b.id ? -1 : 1));
  return [
    rows.map((x) => x.id),
    rows.map((x) => x.who.waId ?? null),
    rows.map((x) => x.who.userId ?? null),
    rows.map((x) => x.who.parentUserId ?? null),
    rows.map((x) => x.last.m.id),
    rows.map((x) => x.last.at),
  ];
}

/** What the provider says about a user in a webhook (contacts[], from, from_user_id...): every field optional. */
export interface Identity {
  waId?: string;
  userId?: string;
  parentUserId?: string;
  username?: string;
  profileName?: string;
}

/** A message of a webhook to keep in the log: inbound (`in`) or an echo of a send from the business app (`out`). */
export interface LoggedMessage {
  id: string;
  tenantId: string;
  clientId: string;
  direction: 'in' | 'out';
  /** The provider's message type (text, image, reaction, interactive, system...). */
  kind: string;
  /** Who wrote it: the user (inbound) or the business number (echo). */
  from: string;
  /** The business number (inbound) or the user (echo). */
  to: string;
  /** Its text: a text body, a caption, a reply's title, an emoji, a system message's body. */
  text: string | null;
  /** The provider's message object as it came. */
  content: unknown;
  /** The message it replies or reacts to. */
  contextId: string | null;
  /** The user it is with. */
  identity: Identity;
  at: Date;
  /** A system message that changes the user's identity (provider-2026.md §2). */
  identityChange?: IdentityChange;
}

/** The user's number or BSUID changed: the new one joins the contact, the old one stays as an alias. */
export interface IdentityChange {
  /** The identity the user had (to find the contact). */
  previous: Identity;
  newWaId?: string;
  newUserId?: string;
  newParentUserId?: string;
}

export interface Contact {
  id: string;
  tenant_id: string;
  client_id: string;
  wa_id: string | null;
  user_id: string | null;
  parent_user_id: string | null;
  username: string | null;
  profile_name: string | null;
  first_seen_at: Date;
  last_seen_at: Date | null;
  last_inbound_at: Date | null;
  last_activity_at: Date;
  last_message_id: string | null;
  last_read_at: Date | null;
  created_at: Date;
  /** Identities the contact had before (user_changed_number, user_changed_user_id). */
  aliases: Array<{ kind: string; value: string }>;
  /** Its first entry on the client's suppression list (opt_outs) by any identity it has or had; null when none. */
  opt_out: { at: Date; source: string } | null;
}

export interface Conversation {
  contact: Contact;
  last_message: MessageRecord | null;
  unread: number;
}

export interface Reaction {
  emoji: string;
  from: string;
  message_id: string;
  at: Date;
}

export interface MessageFilter {
  direction?: 'in' | 'out';
  status?: string;
  kind?: string;
  contactId?: string;
  since?: Date;
  until?: Date;
  q?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor?: string;
}

/** The 24-hour customer service window (provider reference): open for a day after the user last wrote. */
export const WINDOW_MS = 24 * 60 * 60 * 1000;

/** Ids of messages and contacts in a cursor: printable ASCII without the position's separator. */
const ID_FORM = /^[\x21-\x7b\x7d\x7e]{1,256}$/;

const at6 = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** A phone number as the provider's wa_id (digits only), or undefined when `to` is no phone number. */
export function waIdOf(to: string): string | undefined {
  const digits = to.replace(/[\s\-().]/g, '').replace(/^\+/, '');
  return /^\d{5,20}$/.test(digits) ? digits : undefined;
}

const BSUID = /^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$/;

export class SqlConversations {
  constructor(
    private readonly q: Queryable,
    /** 'postgres' searches text with full-text search, 'pglite' with a case-insensitive substring match. */
    private readonly search: 'postgres' | 'pglite' = 'postgres',
  ) {}

  /** The contact of an identity, made when none has it; the identities it brings are added to it. */
  async contactFor(tenantId: string, clientId: string, who: Identity, at: Date, q: Queryable = this.q): Promise<string | undefined> {
    const ids = identitiesOf(who);
    if (!ids.length) return undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const found = await q.query<{ kind: string; contact_id: string }>(`${IDENTITIES_OF} ORDER BY CASE t.k WHEN 'user_id' THEN 0 ELSE 1 END LIMIT 1`, [
        clientId,
        ids.map((i) => i.kind),
        ids.map((i) => i.value),
      ]);
      const contactId = found[0]?.contact_id ?? randomUUID();
      if (!found[0]) {
        // the identity row first: of two first messages of one user at once, one contact wins, the other reads it
        const claimed = await q.query(
          `INSERT INTO contact_identities (client_id, kind, value, contact_id) SELECT $1, k, v, $4 FROM unnest($2::text[], $3::text[]) AS t(k, v)
           ON CONFLICT DO NOTHING RETURNING kind`,
          [clientId, ids.map((i) => i.kind), ids.map((i) => i.value), contactId],
        );
        if (!claimed.length) continue;
        await q.query(
          `INSERT INTO contacts (id, tenant_id, client_id, wa_id, user_id, parent_user_id, username, profile_name, first_seen_at, last_activity_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $9)`,
          [contactId, tenantId, clientId, who.waId ?? null, who.userId ?? null, who.parentUserId ?? null, who.username ?? null, who.profileName ?? null, at],
        );
        return contactId;
      }
      await q.query(
        `INSERT INTO contact_identities (client_id, kind, value, contact_id) SELECT $1, k, v, $4 FROM unnest($2::text[], $3::text[]) AS t(k, v) ON CONFLICT DO NOTHING`,
        [clientId, ids.map((i) => i.kind), ids.map((i) => i.value), contactId],
      );
      await q.query(
        `UPDATE contacts SET wa_id = COALESCE($2, wa_id), user_id = COALESCE($3, user_id), parent_user_id = COALESCE($4, parent_user_id),
           username = COALESCE($5, username), profile_name = COALESCE($6, profile_name)
         WHERE id = $1 AND (wa_id IS DISTINCT FROM COALESCE($2, wa_id) OR user_id IS DISTINCT FROM COALESCE($3, user_id)
           OR parent_user_id IS DISTINCT FROM COALESCE($4, parent_user_id) OR username IS DISTINCT FROM COALESCE($5, username)
           OR profile_name IS DISTINCT FROM COALESCE($6, profile_name))`,
        [contactId, who.waId ?? null, who.userId ?? null, who.parentUserId ?? null, who.username ?? null, who.profileName ?? null],
      );
      return contactId;
    }
    throw new Error('could not claim a contact identity');
  }

  private async touch(q: Queryable, contactId: string, messageId: string, at: Date, inbound: boolean): Promise<void> {
    await q.query(
      `UPDATE contacts SET
         last_message_id = CASE WHEN $3::timestamptz >= last_activity_at THEN $2 ELSE last_message_id END,
         last_activity_at = GREATEST(last_activity_at, $3::timestamptz),
         last_seen_at = CASE WHEN $4 THEN GREATEST(COALESCE(last_seen_at, $3::timestamptz), $3::timestamptz) ELSE last_seen_at END,
         last_inbound_at = CASE WHEN $4 THEN GREATEST(COALESCE(last_inbound_at, $3::timestamptz), $3::timestamptz) ELSE last_inbound_at END
       WHERE id = $1`,
      [contactId, messageId, at, inbound],
    );
  }

  /** Stores messages of a webhook (a redelivery changes nothing) and applies the identity changes they carry. */
  async storeLogged(batch: LoggedMessage[], q: Queryable = this.q): Promise<LoggedMessage[]> {
    const stored: LoggedMessage[] = [];
    for (const m of batch) {
      const contactId = await this.contactFor(m.tenantId, m.clientId, m.identity, m.at, q);
      const status = m.direction === 'in' ? 'received' : 'sent';
      const inserted = await q.query(
        `INSERT INTO messages (id, tenant_id, client_id, to_number, kind, status, status_history, created_at, updated_at, direction, contact_id, from_id,
           text_body, content, context_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $8, $9, $10, $11, $12, $13::jsonb, $14) ON CONFLICT (id) DO NOTHING RETURNING id`,
        [
          m.id,
          m.tenantId,
          m.clientId,
          m.to,
          m.kind,
          status,
          JSON.stringify([{ status, at: m.at.toISOString() }]),
          m.at,
          m.direction,
          contactId ?? null,
          m.from,
          m.text,
          JSON.stringify(m.content ?? null),
          m.contextId,
        ],
      );
      if (!inserted.length) continue;
      stored.push(m);
      if (contactId) {
        if (m.kind !== 'reaction') await this.touch(q, contactId, m.id, m.at, m.direction === 'in');
        else if (m.direction === 'in') await this.seen(q, contactId, m.at);
        if (m.identityChange) await this.changeIdentity(m.clientId, contactId, m.identityChange, q);
      }
    }
    return stored;
  }

  /** A reaction opens the window and counts as seen, but is not the conversation's last message. */
  private async seen(q: Queryable, contactId: string, at: Date): Promise<void> {
    await q.query(
      `UPDATE contacts SET last_seen_at = GREATEST(COALESCE(last_seen_at, $2::timestamptz), $2::timestamptz),
         last_inbound_at = GREATEST(COALESCE(last_inbound_at, $2::timestamptz), $2::timestamptz) WHERE id = $1`,
      [contactId, at],
    );
  }

  /**
   * A new number or BSUID joins the contact (the old one stays, `current` false: an alias), so the history stays
   * on one contact. A contact found by the previous identity, else the one given.
   */
  async changeIdentity(clientId: string, contactId: string, change: IdentityChange, q: Queryable = this.q): Promise<void> {
    const olds = identitiesOf(change.previous);
    const found = olds.length
      ? await q.query<{ contact_id: string }>(`${IDENTITIES_OF} LIMIT 1`, [clientId, olds.map((i) => i.kind), olds.map((i) => i.value)])
      : [];
    const id = found[0]?.contact_id ?? contactId;
    for (const [kind, value] of [
      ['wa_id', change.newWaId],
      ['user_id', change.newUserId],
    ] as const) {
      if (!value) continue;
      await q.query(`UPDATE contact_identities SET current = false WHERE client_id = $1 AND contact_id = $2 AND kind = $3 AND value <> $4`, [
        clientId,
        id,
        kind,
        value,
      ]);
      await q.query(
        `INSERT INTO contact_identities (client_id, kind, value, contact_id) VALUES ($1, $2, $3, $4)
         ON CONFLICT (client_id, kind, value) DO UPDATE SET contact_id = $4, current = true`,
        [clientId, kind, value, id],
      );
    }
    await q.query(
      `UPDATE contacts SET wa_id = COALESCE($2, wa_id), user_id = COALESCE($3, user_id), parent_user_id = COALESCE($4, parent_user_id) WHERE id = $1`,
      [id, change.newWaId ?? null, change.newUserId ?? null, change.newParentUserId ?? null],
    );
  }

  /** Gives stored sends their contact (by the number or BSUID they went to) and moves the conversation forward. */
  async linkSends(batch: NewMessage[], q: Queryable = this.q): Promise<Map<string, string>> {
    // set-based for a whole group commit: one contact lookup per distinct recipient, one UPDATE of the messages,
    // one touch per contact (its latest send), instead of four statements per send
    const linked = new Map<string, string>();
    // sends naming one identity (a campaign's, most sends) are linked together, a few statements for the batch
    const rest = batch.length > 1 ? await this.linkSingles(batch, q, linked) : batch;
    const contacts = new Map<string, string | undefined>();
    for (const m of rest) {
      // the phone number and the business-scoped user id the send named (issue 24: either, or both)
      const who = sendIdentity(m);
      const key = JSON.stringify([m.tenantId, m.clientId, who]);
      if (!contacts.has(key)) contacts.set(key, await this.contactFor(m.tenantId, m.clientId, who, m.at ?? new Date(), q));
      const contactId = contacts.get(key);
      if (contactId) linked.set(m.id, contactId);
    }
    const toLink = rest.filter((m) => linked.has(m.id));
    if (!toLink.length) return linked;
    const updated = await q.query<{ id: string }>(
      `UPDATE messages AS m SET contact_id = v.contact_id, text_body = COALESCE(m.text_body, v.text_body)
       FROM unnest($1::text[], $2::text[], $3::text[]) AS v(id, contact_id, text_body)
       WHERE m.id = v.id AND m.id = ANY($1::text[]) AND m.contact_id IS NULL RETURNING m.id`,
      [toLink.map((m) => m.id), toLink.map((m) => linked.get(m.id)), toLink.map((m) => m.text?.slice(0, 4096) ?? null)],
    );
    // each contact's latest newly linked send is its last message (a later one of equal time wins, as one by one)
    const fresh = new Set(updated.map((r) => r.id));
    const latest = new Map<string, NewMessage>();
    for (const m of toLink) {
      if (!fresh.has(m.id)) continue;
      const contactId = linked.get(m.id)!;
      const prev = latest.get(contactId);
      if (!prev || (m.at ?? new Date()).getTime() >= (prev.at ?? new Date()).getTime()) latest.set(contactId, m);
    }
    // in one order (the contacts' ids): batches written at once lock the rows they share in the same order
    for (const [contactId, m] of [...latest].sort(([a], [b]) => (a < b ? -1 : 1))) await this.touch(q, contactId, m.id, m.at ?? new Date(), false);
    return linked;
  }

  /**
   * The contacts of sends about to be stored (`MessageWriter`, then `insertAccepted` with the answer): each send's
   * contact by the number or BSUID it went to, made when new, and moved forward to its latest send of the batch, as
   * `linkSends` does after the insert. A contact made here is inserted with its last message already (one write of
   * its row), a known one is moved forward and takes the identity's fields in one UPDATE, and the sends are then
   * stored with their contact: one write of each row, where `linkSends` wrote each message and contact twice.
   */
  async contactsForSends(batch: NewMessage[], q: Queryable = this.q): Promise<Map<string, string>> {
    const linked = new Map<string, string>();
    // a batch of one too: a known contact is two statements this way (its identity read, one UPDATE), four by
    // `contactFor` and `touch`; at the rates where the group commit holds one or two sends, that is most batches
    const rest = await this.linkSingles(batch, q, linked, false);
    const contacts = new Map<string, string | undefined>();
    const latest = new Map<string, NewMessage>();
    for (const m of rest) {
      const who = sendIdentity(m);
      const key = JSON.stringify([m.tenantId, m.clientId, who]);
      if (!contacts.has(key)) contacts.set(key, await this.contactFor(m.tenantId, m.clientId, who, m.at ?? new Date(), q));
      const contactId = contacts.get(key);
      if (!contactId) continue;
      linked.set(m.id, contactId);
      const prev = latest.get(contactId);
      if (!prev || (m.at ?? new Date()).getTime() >= (prev.at ?? new Date()).getTime()) latest.set(contactId, m);
    }
    for (const [contactId, m] of [...latest].sort(([a], [b]) => (a < b ? -1 : 1))) await this.touch(q, contactId, m.id, m.at ?? new Date(), false);
    return linked;
  }

  /**
   * The contacts of sends about to be stored when each names at most one identity and every such identity is
   * already a contact's (the steady state: a business writing to its users again): each send's contact and the
   * parameters of MOVE_CONTACTS, for the caller to run as part of the sends' INSERT (one statement, no transaction:
   * the identities read, then one write, where `contactsForSends` in a transaction took five round trips). Undefined
   * when any send needs more (a new user, a send naming several identities): `contactsForSends` then.
   */
  async knownContactsForSends(batch: NewMessage[], q: Queryable = this.q): Promise<{ contacts: Map<string, string>; moveContacts: WriteBefore } | undefined> {
    const { byClient, several } = singlesByClient(batch);
    if (several.length) return undefined;
    const contacts = new Map<string, string>();
    const moves: ContactMove[] = [];
    for (const [clientId, sends] of byClient) {
      const contactOf = await contactsOfIdentities(q, clientId, sends);
      for (const x of sends) {
        const id = contactOf.get(identityKey(x.kind, x.value));
        if (!id) return undefined;
        contacts.set(x.m.id, id);
        moves.push({ id, who: x.who, last: x });
      }
    }
    return { contacts, moveContacts: { text: MOVE_CONTACTS, params: contactMoves(moves) } };
  }

  /**
   * `linkSends` (`stored`: the sends are stored) or `contactsForSends` (not yet) of the sends in `batch` that name
   * exactly one identity, as one statement per step for all of them (the same steps as `contactFor`,
   * `UPDATE messages` and `touch` one by one); answers the sends left to link one by one (more identities, none,
   * or an identity another writer claimed meanwhile).
   */
  private async linkSingles(batch: NewMessage[], q: Queryable, linked: Map<string, string>, stored = true): Promise<NewMessage[]> {
    const { byClient, several: rest } = singlesByClient(batch);
    for (const [clientId, sends] of byClient) {
      const wanted = new Map(sends.map((x) => [identityKey(x.kind, x.value), x]));
      // each identity's latest send of the batch (the later one of equal times, as one by one)
      const newest = new Map<string, (typeof sends)[number]>();
      for (const x of sends) {
        const k = identityKey(x.kind, x.value);
        const had = newest.get(k);
        if (!had || x.at.getTime() >= had.at.getTime()) newest.set(k, x);
      }
      const contactOf = await contactsOfIdentities(q, clientId, wanted.values());
      // known contacts take the identity's fields again (as contactFor does)
      // in the contacts' order, as linkSends touches them: batches written at once lock shared rows in one order
      const known = [...wanted.entries()]
        .filter(([k]) => contactOf.has(k))
        .map(([k, x]) => ({ id: contactOf.get(k)!, who: x.who, last: newest.get(k)! }))
        .sort((a, b) => (a.id < b.id ? -1 : 1));
      if (known.length && stored) {
        await q.query(
          `UPDATE contacts c SET wa_id = COALESCE(v.wa_id, c.wa_id), user_id = COALESCE(v.user_id, c.user_id), parent_user_id = COALESCE(v.parent_user_id, c.parent_user_id)
           FROM (SELECT DISTINCT ON (id) id, wa_id, user_id, parent_user_id FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(id, wa_id, user_id, parent_user_id)) v WHERE c.id = v.id`,
          [known.map((x) => x.id), known.map((x) => x.who.waId ?? null), known.map((x) => x.who.userId ?? null), known.map((x) => x.who.parentUserId ?? null)],
        );
      } else if (known.length) {
        // not stored yet: the identity's fields and the move to the latest send, one UPDATE of each known contact
        // (two identities of one contact in the batch: its latest send of them)
        await q.query(MOVE_CONTACTS, contactMoves(known));
      }
      // new users: the identity row first (of two writers at once one wins; the other's sends go one by one)
      const fresh = [...wanted.entries()].filter(([k]) => !contactOf.has(k)).map(([k, x]) => ({ k, x, id: randomUUID() }));
      const made = new Set<string>();
      if (fresh.length) {
        const claimed = await q.query<{ kind: string; value: string; contact_id: string }>(
          `INSERT INTO contact_identities (client_id, kind, value, contact_id) SELECT $1, k, v, id FROM unnest($2::text[], $3::text[], $4::text[]) AS t(k, v, id)
           ON CONFLICT DO NOTHING RETURNING kind, value, contact_id`,
          [clientId, fresh.map((f) => f.x.kind), fresh.map((f) => f.x.value), fresh.map((f) => f.id)],
        );
        const mine = new Set(claimed.map((c) => identityKey(c.kind, c.value)));
        const ours = fresh.filter((f) => mine.has(f.k));
        if (ours.length) {
          const first = ours[0].x.m;
          // not stored yet: a new contact's last message is its latest send (no touch after); stored: touched below
          const last = (f: (typeof ours)[number]) => (stored ? undefined : newest.get(f.k));
          await q.query(
            `INSERT INTO contacts (id, tenant_id, client_id, wa_id, user_id, parent_user_id, first_seen_at, last_activity_at, created_at, last_message_id)
             SELECT id, $1, $2, wa_id, user_id, parent_user_id, at, COALESCE(last_at, at), at, last_message_id
             FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[], $9::text[]) AS t(id, wa_id, user_id, parent_user_id, at, last_at, last_message_id)`,
            [
              first.tenantId,
              clientId,
              ours.map((f) => f.id),
              ours.map((f) => f.x.who.waId ?? null),
              ours.map((f) => f.x.who.userId ?? null),
              ours.map((f) => f.x.who.parentUserId ?? null),
              ours.map((f) => f.x.at),
              ours.map((f) => last(f)?.at ?? null),
              ours.map((f) => last(f)?.m.id ?? null),
            ],
          );
        }
        for (const f of ours) {
          contactOf.set(f.k, f.id);
          made.add(f.id);
        }
      }
      const linkable = sends.filter((x) => {
        if (contactOf.has(identityKey(x.kind, x.value))) return true;
        rest.push(x.m);
        return false;
      });
      if (!linkable.length) continue;
      const contactFor = (x: (typeof linkable)[number]) => contactOf.get(identityKey(x.kind, x.value))!;
      for (const x of linkable) linked.set(x.m.id, contactFor(x));
      // not stored yet: every contact was moved forward above (known) or made with its last message (new)
      if (!stored) continue;
      const updated = await q.query<{ id: string }>(
        `UPDATE messages m SET contact_id = v.contact_id, text_body = COALESCE(m.text_body, v.text)
         FROM unnest($1::text[], $2::text[], $3::text[]) AS v(id, contact_id, text) WHERE m.id = v.id AND m.contact_id IS NULL RETURNING m.id`,
        [linkable.map((x) => x.m.id), linkable.map(contactFor), linkable.map((x) => x.m.text?.slice(0, 4096) ?? null)],
      );
      // each contact's latest send of those linked now (the later one of equal times, as one by one)
      const ids = new Set(updated.map((u) => u.id));
      const latest = new Map<string, { messageId: string; at: Date }>();
      for (const x of linkable) {
        if (!ids.has(x.m.id)) continue;
        const c = contactFor(x);
        const had = latest.get(c);
        if (!had || x.at.getTime() >= had.at.getTime()) latest.set(c, { messageId: x.m.id, at: x.at });
      }
      if (latest.size) {
        const touched = [...latest].sort(([a], [b]) => (a < b ? -1 : 1));
        await q.query(
          `UPDATE contacts c SET
             last_message_id = CASE WHEN v.at >= c.last_activity_at THEN v.message_id ELSE c.last_message_id END,
             last_activity_at = GREATEST(c.last_activity_at, v.at)
           FROM unnest($1::text[], $2::text[], $3::timestamptz[]) AS v(id, message_id, at) WHERE c.id = v.id`,
          [touched.map(([c]) => c), touched.map(([, v]) => v.messageId), touched.map(([, v]) => v.at)],
        );
      }
    }
    return rest;
  }

  async getContact(tenantId: string, clientId: string, contactId: string): Promise<Contact | undefined> {
    const rows = await this.q.query<Omit<Contact, 'aliases' | 'opt_out'>>('SELECT * FROM contacts WHERE id = $1 AND tenant_id = $2 AND client_id = $3', [
      contactId,
      tenantId,
      clientId,
    ]);
    if (!rows[0]) return undefined;
    return (await this.withAliases(clientId, rows))[0];
  }

  /**
   * Contacts with their aliases and their place on the client's suppression list: an opt-out (campaigns' `opt_outs`,
   * keyed by phone digits or BSUID) of any identity the contact has or had, or of its parent BSUID; the earliest.
   */
  private async withAliases(clientId: string, rows: Array<Omit<Contact, 'aliases' | 'opt_out'>>): Promise<Contact[]> {
    if (!rows.length) return [];
    const ids = rows.map((r) => r.id);
    const [aliases, optOuts] = await Promise.all([
      this.q.query<{ contact_id: string; kind: string; value: string }>(
        `SELECT contact_id, kind, value FROM contact_identities WHERE client_id = $1 AND contact_id = ANY($2::text[]) AND NOT current ORDER BY created_at, value`,
        [clientId, ids],
      ),
      this.q.query<{ contact_id: string; created_at: Date; source: string }>(
        `SELECT i.contact_id, o.created_at, o.source FROM contact_identities i JOIN opt_outs o ON o.client_id = i.client_id AND o.user_id = i.value
           WHERE i.client_id = $1 AND i.contact_id = ANY($2::text[])
         UNION ALL
         SELECT c.id, o.created_at, o.source FROM contacts c JOIN opt_outs o ON o.client_id = c.client_id AND o.user_id = c.parent_user_id
           WHERE c.client_id = $1 AND c.id = ANY($2::text[])
         ORDER BY 2`,
        [clientId, ids],
      ),
    ]);
    return rows.map((r) => {
      const o = optOuts.find((x) => x.contact_id === r.id);
      return {
        ...r,
        aliases: aliases.filter((a) => a.contact_id === r.id).map(({ kind, value }) => ({ kind, value })),
        opt_out: o ? { at: o.created_at, source: o.source } : null,
      };
    });
  }

  /**
   * Messages of a tenant (or one of its clients) per UTC day in [from, to] by direction and status: a range of
   * `messages_client_log` (one client) or `messages_tenant_created` (the tenant).
   */
  async countByDay(
    tenantId: string,
    clientId: string | undefined,
    from: string,
    to: string,
  ): Promise<Array<{ day: string; direction: string; status: string; count: number }>> {
    // one statement per shape, so a prepared plan of either keeps its index
    return this.q.query(
      // grouped by the date (a hash of a few dozen groups), formatted after: grouping by the formatted text sorted every row
      `SELECT to_char(d, 'YYYY-MM-DD') AS day, direction, status, n AS count FROM (
         SELECT (created_at AT TIME ZONE 'UTC')::date AS d, direction, status, count(*)::int AS n FROM messages
           WHERE tenant_id = $1 AND created_at >= $2::date AND created_at < ($3::date + 1) ${clientId ? 'AND client_id = $4' : ''}
           GROUP BY 1, 2, 3) AS days
       ORDER BY 1, 2, 3`,
      clientId ? [tenantId, from, to, clientId] : [tenantId, from, to],
    );
  }

  /** A client's contacts, newest first; `q` matches a number, BSUID, username or profile name (case-insensitive substring). */
  async listContacts(tenantId: string, clientId: string, f: { q?: string; limit: number; cursor?: string }): Promise<Page<Contact>> {
    const after = f.cursor ? decodePosition(f.cursor, ID_FORM) : undefined;
    const rows = await this.q.query<Omit<Contact, 'aliases' | 'opt_out'> & { position_at: string }>(
      `SELECT *, ${at6('created_at')} AS position_at FROM contacts WHERE tenant_id = $1 AND client_id = $2
         AND ($3::text IS NULL OR strpos(lower(coalesce(wa_id, '') || ' ' || coalesce(user_id, '') || ' ' || coalesce(username, '') || ' ' || coalesce(profile_name, '')), lower($3)) > 0
           OR id IN (SELECT contact_id FROM contact_identities WHERE client_id = $2 AND value = $3))
         AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::text))
       ORDER BY created_at DESC, id DESC LIMIT $6`,
      [tenantId, clientId, f.q ?? null, after?.at ?? null, after?.id ?? null, f.limit + 1],
    );
    const { page, nextCursor } = takePage(rows, f.limit, (last) => encodePosition({ at: last.position_at, id: last.id }));
    return {
      items: await this.withAliases(
        clientId,
        page.map(({ position_at: _, ...r }) => r),
      ),
      nextCursor,
    };
  }

  /** The message log of a client, newest first, filtered. */
  async listMessages(tenantId: string, clientId: string, f: MessageFilter & { limit: number; cursor?: string }): Promise<Page<MessageRecord>> {
    const after = f.cursor ? decodePosition(f.cursor, ID_FORM) : undefined;
    const params: unknown[] = [tenantId, clientId];
    const where = ['tenant_id = $1', 'client_id = $2'];
    const add = (sql: (n: string) => string, v: unknown) => {
      params.push(v);
      where.push(sql(`$${params.length}`));
    };
    if (f.direction) add((n) => `direction = ${n}`, f.direction);
    if (f.status) add((n) => `status = ${n}`, f.status);
    if (f.kind) add((n) => `kind = ${n}`, f.kind);
    if (f.contactId) add((n) => `contact_id = ${n}`, f.contactId);
    if (f.since) add((n) => `created_at >= ${n}::timestamptz`, f.since);
    if (f.until) add((n) => `created_at < ${n}::timestamptz`, f.until);
    if (f.q) {
      if (this.search === 'postgres') add((n) => `to_tsvector('simple', coalesce(text_body, '')) @@ plainto_tsquery('simple', ${n})`, f.q);
      else add((n) => `strpos(lower(coalesce(text_body, '')), lower(${n})) > 0`, f.q);
    }
    if (after) {
      params.push(after.at, after.id);
      where.push(`(created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::text)`);
    }
    params.push(f.limit + 1);
    const rows = await this.q.query<MessageRow & { position_at: string }>(
      `SELECT *, ${at6('created_at')} AS position_at FROM messages WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
    const { page, nextCursor } = takePage(rows, f.limit, (last) => encodePosition({ at: last.position_at, id: last.id }));
    return { items: page.map(recordOf), nextCursor };
  }

  /** Contacts by last activity, each with its last message and the inbound messages since its last mark-read. */
  async listConversations(tenantId: string, clientId: string, f: { limit: number; cursor?: string }): Promise<Page<Conversation>> {
    const after = f.cursor ? decodePosition(f.cursor, ID_FORM) : undefined;
    const rows = await this.q.query<Omit<Contact, 'aliases' | 'opt_out'> & { position_at: string; unread: number }>(
      `SELECT c.*, ${at6('c.last_activity_at')} AS position_at,
         (SELECT count(*)::int FROM messages m WHERE m.client_id = c.client_id AND m.contact_id = c.id AND m.direction = 'in' AND m.kind <> 'reaction'
            AND m.created_at > COALESCE(c.last_read_at, '-infinity'::timestamptz)) AS unread
       FROM contacts c WHERE c.tenant_id = $1 AND c.client_id = $2
         AND ($3::timestamptz IS NULL OR (c.last_activity_at, c.id) < ($3::timestamptz, $4::text))
       ORDER BY c.last_activity_at DESC, c.id DESC LIMIT $5`,
      [tenantId, clientId, after?.at ?? null, after?.id ?? null, f.limit + 1],
    );
    const { page, nextCursor } = takePage(rows, f.limit, (last) => encodePosition({ at: last.position_at, id: last.id }));
    const lastIds = page.map((r) => r.last_message_id).filter((id): id is string => !!id);
    const last = lastIds.length
      ? await this.q.query<MessageRow>('SELECT * FROM messages WHERE client_id = $1 AND id = ANY($2::text[])', [clientId, lastIds])
      : [];
    const contacts = await this.withAliases(
      clientId,
      page.map(({ position_at: _p, unread: _u, ...r }) => r),
    );
    return {
      items: page.map((r, i) => {
        const row = last.find((m) => m.id === r.last_message_id);
        return { contact: contacts[i], last_message: row ? recordOf(row) : null, unread: r.unread };
      }),
      nextCursor,
    };
  }

  /** A contact's thread, newest first: both directions; reactions are attached to their message, not listed. */
  async thread(
    tenantId: string,
    clientId: string,
    contactId: string,
    f: { limit: number; cursor?: string },
  ): Promise<Page<MessageRecord & { reactions: Reaction[] }>> {
    const after = f.cursor ? decodePosition(f.cursor, ID_FORM) : undefined;
    const rows = await this.q.query<MessageRow & { position_at: string }>(
      `SELECT *, ${at6('created_at')} AS position_at FROM messages WHERE tenant_id = $1 AND client_id = $2 AND contact_id = $3 AND kind <> 'reaction'
         AND ($4::timestamptz IS NULL OR (created_at, id) < ($4::timestamptz, $5::text))
       ORDER BY created_at DESC, id DESC LIMIT $6`,
      [tenantId, clientId, contactId, after?.at ?? null, after?.id ?? null, f.limit + 1],
    );
    const { page, nextCursor } = takePage(rows, f.limit, (last) => encodePosition({ at: last.position_at, id: last.id }));
    const reactions = page.length
      ? await this.q.query<{ context_id: string; text_body: string | null; from_id: string | null; id: string; created_at: Date }>(
          `SELECT context_id, text_body, from_id, id, created_at FROM messages WHERE client_id = $1 AND kind = 'reaction' AND context_id = ANY($2::text[])
           ORDER BY created_at, id`,
          [clientId, page.map((m) => m.id)],
        )
      : [];
    return {
      items: page.map((row) => {
        // a user's later reaction replaces the earlier one; an empty emoji removes it
        const latest = new Map<string, Reaction>();
        for (const r of reactions.filter((x) => x.context_id === row.id))
          latest.set(r.from_id ?? '', { emoji: r.text_body ?? '', from: r.from_id ?? '', message_id: r.id, at: r.created_at });
        return { ...recordOf(row), reactions: [...latest.values()].filter((r) => r.emoji) };
      }),
      nextCursor,
    };
  }

  /** The conversation is read up to now: its unread count starts again from zero. */
  async markRead(tenantId: string, clientId: string, contactId: string, at: Date): Promise<boolean> {
    const rows = await this.q.query(
      'UPDATE contacts SET last_read_at = GREATEST(COALESCE(last_read_at, $4::timestamptz), $4::timestamptz) WHERE id = $1 AND tenant_id = $2 AND client_id = $3 RETURNING id',
      [contactId, tenantId, clientId, at],
    );
    return rows.length > 0;
  }

  /** Tenant, client and contact of a stored message (for the live stream). */
  async ownerOf(messageId: string): Promise<{ tenant_id: string; client_id: string; contact_id: string | null; status: string } | undefined> {
    const rows = await this.q.query<{ tenant_id: string; client_id: string; contact_id: string | null; status: string }>(
      'SELECT tenant_id, client_id, contact_id, status FROM messages WHERE id = $1',
      [messageId],
    );
    return rows[0];
  }

  /**
   * Deletes up to `batch` messages created before `cutoff` (one short statement: never a long lock on the
   * table sends and ingest write to), then contacts with no activity since (their identities with them).
   * Returns how many messages and contacts it deleted.
   */
  async pruneBatch(cutoff: Date, batch: number): Promise<{ messages: number; contacts: number }> {
    const messages = await this.q.query(
      'DELETE FROM messages WHERE id IN (SELECT id FROM messages WHERE created_at < $1 ORDER BY created_at LIMIT $2) RETURNING id',
      [cutoff, batch],
    );
    const contacts = await this.q.query<{ id: string; client_id: string }>(
      'DELETE FROM contacts WHERE id IN (SELECT id FROM contacts WHERE last_activity_at < $1 LIMIT $2) RETURNING id, client_id',
      [cutoff, batch],
    );
    if (contacts.length) await this.q.query('DELETE FROM contact_identities WHERE contact_id = ANY($1::text[])', [contacts.map((c) => c.id)]);
    return { messages: messages.length, contacts: contacts.length };
  }
}

/** The user a send named: its phone number and business-scoped user id (issue 24: either, or both). */
function sendIdentity(m: NewMessage): Identity {
  const waId = m.to ? waIdOf(m.to) : undefined;
  const bsuid = m.recipient ?? (m.to && BSUID.test(m.to) ? m.to : undefined);
  return {
    ...(waId ? { waId } : {}),
    ...(bsuid ? (bsuid.includes('.ENT.') ? { parentUserId: bsuid } : { userId: bsuid }) : {}),
  };
}

function identitiesOf(who: Identity): Array<{ kind: string; value: string }> {
  const out: Array<{ kind: string; value: string }> = [];
  if (who.userId) out.push({ kind: 'user_id', value: who.userId });
  if (who.waId) out.push({ kind: 'wa_id', value: who.waId });
  return out;
}
