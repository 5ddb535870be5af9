import Joi from 'joi';
import { clientId, opaqueId, uuid } from '@gateway/message-kinds';

/*
 * Queries of the message log, contacts, conversations and the live stream (issue 27, docs/conversations.md).
 * Every list pages with `limit` (1-100) and the `cursor` of the previous page.
 */

/** Statuses a logged message can have: a send's lifecycle, and `received` for an inbound message. */
export const LOG_STATUSES = ['accepted', 'sent', 'delivered', 'read', 'played', 'failed', 'received'] as const;

const page = {
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(512),
};

export const clientQuery = Joi.object({ client_id: clientId });

export const messageListQuery = Joi.object({
  client_id: clientId,
  direction: Joi.string().valid('in', 'out'),
  status: Joi.string().valid(...LOG_STATUSES),
  type: Joi.string().pattern(/^[a-z_]{1,64}$/, 'message type'),
  contact_id: uuid,
  since: Joi.string().isoDate(),
  until: Joi.string().isoDate(),
  q: Joi.string().trim().min(1).max(200),
  ...page,
});

export const contactListQuery = Joi.object({
  client_id: clientId,
  q: Joi.string().trim().min(1).max(200),
  ...page,
});

export const pagedClientQuery = Joi.object({ client_id: clientId, ...page });

export const contactPath = Joi.object({ contact_id: uuid.required() });

export const streamQuery = Joi.object({ client_id: clientId });

/** `Last-Event-ID` of a reconnecting stream: the id of the last event it received. */
export const streamHeaders = Joi.object({ 'last-event-id': Joi.string().pattern(/^\d{1,20}$/, 'event id') }).unknown(true);

export { opaqueId };

/** `GET /api/stats`: the last `days` UTC days (today included), of one client or of the whole tenant. */
export const STATS_MAX_DAYS = 92;
export const statsQuery = Joi.object({ client_id: uuid, days: Joi.number().integer().min(1).max(STATS_MAX_DAYS).default(14) });
