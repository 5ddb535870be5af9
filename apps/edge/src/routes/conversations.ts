import type { Context } from 'koa';
import { tenantOf } from '../auth';
import { ListCursors } from '../cursors';
import { json, operation } from '../openapi/operation';
import { Contact, Conversation, Message, pageOf, respond, Stats } from '../presenters';
import { clientQuery, contactListQuery, contactPath, messageListQuery, pagedClientQuery, statsQuery } from '../schemas/conversations';
import { validateParts } from '../validation';
import type { RegisterRoutes } from './context';

/*
 * The message log, contacts and conversations of a client (issue 27, docs/conversations.md), from the messaging
 * service's tables. The client is checked against the caller's tenant first: another tenant's client is a 404,
 * and its contacts and messages are 404s too (the service looks them up by tenant and client).
 */

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

const Messages = pageOf(Message);
const Contacts = pageOf(Contact);
const Conversations = pageOf(Conversation);

interface Page {
  limit: number;
  cursor?: string;
}

export const registerConversationRoutes: RegisterRoutes = (router, { services, config }) => {
  const cursors = new ListCursors(config.adminToken);
  const ownClient = async (ctx: Context, clientId: string) => {
    await services.directory.getClient({ tenantId: tenantOf(ctx), clientId });
  };

  router.get(
    '/api/messages',
    operation({
      operationId: 'listMessages',
      summary: "A client's message log: inbound and outbound, newest first",
      description:
        'Every inbound message (all types, reactions and system messages included, and echoes of the business app) and every send with its ' +
        'status history. `q` searches the text: PostgreSQL full-text search (words, `simple` configuration) in production, a ' +
        'case-insensitive substring on the embedded PGlite store.',
      tags: ['Conversations'],
      request: { query: messageListQuery },
      responses: { 200: json('A page of messages.', Messages) },
      errors: [404],
    }),
    async (ctx) => {
      const { query } = validateParts<{
        query: {
          client_id: string;
          direction?: string;
          status?: string;
          type?: string;
          contact_id?: string;
          since?: string;
          until?: string;
          q?: string;
        } & Page;
      }>({ query: [messageListQuery, ctx.query] });
      await ownClient(ctx, query.client_id);
      const scope = ['messages', tenantOf(ctx), query.client_id];
      const res = await services.conversations.listMessages({
        tenantId: tenantOf(ctx),
        clientId: query.client_id,
        direction: query.direction,
        status: query.status,
        type: query.type,
        contactId: query.contact_id,
        since: query.since,
        until: query.until,
        q: query.q,
        limit: query.limit,
        cursor: cursors.open(scope, query.cursor),
      });
      respond(ctx, Messages, { items: res.messages, nextCursor: cursors.seal(scope, res.nextCursor) });
    },
  );

  router.get(
    '/api/contacts',
    operation({
      operationId: 'listContacts',
      summary: "A client's contacts, newest first",
      description: '`q` matches a phone number, BSUID, username or profile name (case-insensitive), or any former identity exactly.',
      tags: ['Conversations'],
      request: { query: contactListQuery },
      responses: { 200: json('A page of contacts.', Contacts) },
      errors: [404],
    }),
    async (ctx) => {
      const { query } = validateParts<{ query: { client_id: string; q?: string } & Page }>({ query: [contactListQuery, ctx.query] });
      await ownClient(ctx, query.client_id);
      const scope = ['contacts', tenantOf(ctx), query.client_id];
      const res = await services.conversations.listContacts({
        tenantId: tenantOf(ctx),
        clientId: query.client_id,
        q: query.q,
        limit: query.limit,
        cursor: cursors.open(scope, query.cursor),
      });
      respond(ctx, Contacts, { items: res.contacts, nextCursor: cursors.seal(scope, res.nextCursor) });
    },
  );

  router.get(
    '/api/contacts/:contact_id',
    operation({
      operationId: 'getContact',
      summary: 'A contact with every identity and its 24-hour window',
      tags: ['Conversations'],
      request: { path: contactPath, query: clientQuery },
      responses: { 200: json('The contact.', Contact) },
      errors: [404],
    }),
    async (ctx) => {
      const { path, query } = validateParts<{ path: { contact_id: string }; query: { client_id: string } }>({
        path: [contactPath, ctx.params],
        query: [clientQuery, ctx.query],
      });
      const res = await services.conversations.getContact({ tenantId: tenantOf(ctx), clientId: query.client_id, contactId: path.contact_id });
      respond(ctx, Contact, res.contact);
    },
  );

  router.get(
    '/api/conversations',
    operation({
      operationId: 'listConversations',
      summary: "A client's conversations, by last activity",
      description: 'Each contact with its last message, the inbound messages since it was last marked read (`unread`) and its 24-hour window.',
      tags: ['Conversations'],
      request: { query: pagedClientQuery },
      responses: { 200: json('A page of conversations.', Conversations) },
      errors: [404],
    }),
    async (ctx) => {
      const { query } = validateParts<{ query: { client_id: string } & Page }>({ query: [pagedClientQuery, ctx.query] });
      await ownClient(ctx, query.client_id);
      const scope = ['conversations', tenantOf(ctx), query.client_id];
      const res = await services.conversations.listConversations({
        tenantId: tenantOf(ctx),
        clientId: query.client_id,
        limit: query.limit,
        cursor: cursors.open(scope, query.cursor),
      });
      respond(ctx, Conversations, { items: res.conversations, nextCursor: cursors.seal(scope, res.nextCursor) });
    },
  );

  router.get(
    '/api/conversations/:contact_id/messages',
    operation({
      operationId: 'listThread',
      summary: 'A conversation: the messages with one contact, newest first',
      description: 'Both directions with their statuses; reactions are attached to the message they react to (`reactions`), not listed.',
      tags: ['Conversations'],
      request: { path: contactPath, query: pagedClientQuery },
      responses: { 200: json('A page of the thread.', Messages) },
      errors: [404],
    }),
    async (ctx) => {
      const { path, query } = validateParts<{ path: { contact_id: string }; query: { client_id: string } & Page }>({
        path: [contactPath, ctx.params],
        query: [pagedClientQuery, ctx.query],
      });
      const scope = ['thread', tenantOf(ctx), query.client_id, path.contact_id];
      const res = await services.conversations.listThread({
        tenantId: tenantOf(ctx),
        clientId: query.client_id,
        contactId: path.contact_id,
        limit: query.limit,
        cursor: cursors.open(scope, query.cursor),
      });
      respond(ctx, Messages, { items: res.messages, nextCursor: cursors.seal(scope, res.nextCursor) });
    },
  );

  router.post(
    '/api/conversations/:contact_id/read',
    operation({
      operationId: 'markConversationRead',
      summary: 'Mark a conversation read: its unread count starts again from zero',
      description: "Local to the gateway (the inbox's read state); it does not send read receipts to the user (use `POST /api/messaging/mark-read`).",
      tags: ['Conversations'],
      request: { path: contactPath, query: clientQuery },
      responses: { 200: json('The conversation.', Conversation) },
      errors: [404],
    }),
    async (ctx) => {
      const { path, query } = validateParts<{ path: { contact_id: string }; query: { client_id: string } }>({
        path: [contactPath, ctx.params],
        query: [clientQuery, ctx.query],
      });
      const res = await services.conversations.markConversationRead({ tenantId: tenantOf(ctx), clientId: query.client_id, contactId: path.contact_id });
      respond(ctx, Conversation, res.conversation);
    },
  );

  router.get(
    '/api/stats',
    operation({
      operationId: 'getStats',
      summary: 'Messages per day by direction and status, and webhook delivery outcomes per day',
      description:
        "The last `days` UTC days, today included (default 14), of one client (`client_id`) or of every client of the tenant: the message log's " +
        "messages (the messaging service) and the webhook deliveries (the dispatcher). The dashboard's Overview charts them.",
      tags: ['Conversations'],
      request: { query: statsQuery },
      responses: { 200: json('The counts.', Stats) },
      errors: [404],
    }),
    async (ctx) => {
      const { query } = validateParts<{ query: { client_id?: string; days: number } }>({ query: [statsQuery, ctx.query] });
      const tenantId = tenantOf(ctx);
      if (query.client_id) await ownClient(ctx, query.client_id);
      const now = Date.now();
      const to = day(now);
      const from = day(now - (query.days - 1) * DAY_MS);
      const [messages, deliveries] = await Promise.all([
        services.conversations.countMessagesByDay({ tenantId, clientId: query.client_id ?? '', from, to }),
        services.deliveryCounts.countByDay({ tenantId, from, to, clientId: query.client_id }),
      ]);
      respond(ctx, Stats, { from, to, clientId: query.client_id ?? null, messages: messages.counts, deliveries: deliveries.counts });
    },
  );
};
