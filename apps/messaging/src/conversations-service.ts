import type { MessageInitShape } from '@bufbuild/protobuf';
import { conversations as cv } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import { defineService } from '@gateway/rpc';
import { pageSize } from '@gateway/store';
import type { Clock } from './clock';
import { present } from './messaging';
import { WINDOW_MS, type Contact, type Conversation, type SqlConversations } from './store/conversations';

const iso = (d: Date | null | undefined) => (d ? new Date(d).toISOString() : undefined);

/** A contact as the API shows it: its identities, when it was seen and its 24-hour window. */
export function presentContact(c: Contact, now: Date): MessageInitShape<typeof cv.ContactSchema> {
  const until = c.last_inbound_at ? new Date(new Date(c.last_inbound_at).getTime() + WINDOW_MS) : undefined;
  return {
    id: c.id,
    clientId: c.client_id,
    waId: c.wa_id ?? undefined,
    userId: c.user_id ?? undefined,
    parentUserId: c.parent_user_id ?? undefined,
    username: c.username ?? undefined,
    profileName: c.profile_name ?? undefined,
    firstSeenAt: iso(c.first_seen_at)!,
    lastSeenAt: iso(c.last_seen_at),
    windowOpenUntil: iso(until),
    windowOpen: !!until && until.getTime() > now.getTime(),
    lastActivityAt: iso(c.last_activity_at)!,
    aliases: c.aliases,
    optedOut: !!c.opt_out,
    optedOutAt: iso(c.opt_out?.at),
    optedOutSource: c.opt_out?.source,
  };
}

function presentConversation(c: Conversation, now: Date): MessageInitShape<typeof cv.ConversationSchema> {
  return { contact: presentContact(c.contact, now), lastMessage: c.last_message ? present(c.last_message) : undefined, unread: c.unread };
}

/** An ISO 8601 bound of a list, or a 422 naming it (the edge validated it already; this is the service's own check). */
function instant(value: string, name: string): Date | undefined {
  if (!value) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime()))
    throw AppError.validation([{ loc: ['query', name], msg: `${name} must be an ISO 8601 time`, type: 'date.base', input: value, ctx: {} }]);
  return d;
}

/** A UTC day (YYYY-MM-DD) of a count, or a 422 naming it. */
function day(value: string, name: string): string {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(Date.parse(value)))
    throw AppError.validation([{ loc: ['query', name], msg: `${name} must be a day (YYYY-MM-DD)`, type: 'date.format', input: value, ctx: {} }]);
  return value;
}

/** The ConversationsService of proto/conversations, served by the messaging process (issue 27). */
export function defineConversationsService(store: SqlConversations, clock: Clock) {
  const contactOf = async (tenantId: string, clientId: string, contactId: string) => {
    const c = await store.getContact(tenantId, clientId, contactId);
    if (!c) throw AppError.notFound('contact_not_found', 'Contact not found');
    return c;
  };
  return defineService(cv.ConversationsService, {
    listMessages: async (r) => {
      const page = await store.listMessages(r.tenantId, r.clientId, {
        direction: r.direction === 'in' || r.direction === 'out' ? r.direction : undefined,
        status: r.status || undefined,
        kind: r.type || undefined,
        contactId: r.contactId || undefined,
        since: instant(r.since, 'since'),
        until: instant(r.until, 'until'),
        q: r.q || undefined,
        limit: pageSize(r.limit),
        cursor: r.cursor || undefined,
      });
      return { messages: page.items.map(present), nextCursor: page.nextCursor ?? '' };
    },
    listContacts: async (r) => {
      const page = await store.listContacts(r.tenantId, r.clientId, { q: r.q || undefined, limit: pageSize(r.limit), cursor: r.cursor || undefined });
      const now = clock.now();
      return { contacts: page.items.map((c) => presentContact(c, now)), nextCursor: page.nextCursor ?? '' };
    },
    getContact: async (r) => ({ contact: presentContact(await contactOf(r.tenantId, r.clientId, r.contactId), clock.now()) }),
    listConversations: async (r) => {
      const page = await store.listConversations(r.tenantId, r.clientId, { limit: pageSize(r.limit), cursor: r.cursor || undefined });
      const now = clock.now();
      return { conversations: page.items.map((c) => presentConversation(c, now)), nextCursor: page.nextCursor ?? '' };
    },
    listThread: async (r) => {
      await contactOf(r.tenantId, r.clientId, r.contactId);
      const page = await store.thread(r.tenantId, r.clientId, r.contactId, { limit: pageSize(r.limit), cursor: r.cursor || undefined });
      return { messages: page.items.map(present), nextCursor: page.nextCursor ?? '' };
    },
    countMessagesByDay: async (r) => ({
      counts: (await store.countByDay(r.tenantId, r.clientId || undefined, day(r.from, 'from'), day(r.to, 'to'))).map((c) => ({
        ...c,
        count: BigInt(c.count),
      })),
    }),
    markConversationRead: async (r) => {
      if (!(await store.markRead(r.tenantId, r.clientId, r.contactId, clock.now()))) throw AppError.notFound('contact_not_found', 'Contact not found');
      const contact = await contactOf(r.tenantId, r.clientId, r.contactId);
      const now = clock.now();
      return { conversation: { contact: presentContact(contact, now), unread: 0 } };
    },
  });
}
