import Joi from 'joi';
import { clientId, opaqueId, phone } from '@gateway/message-kinds';

/*
 * Request bodies of the messaging operations that are not sends (block users, typing, read); the Calling API's are
 * in calls.ts. Every send's body is its kind's schema (@gateway/message-kinds). Every limit of decisions.md
 * ("Request fields the spec does not show") and of the provider reference is checked here, so a bad request is a
 * 422 listing every problem before any service or provider call.
 */

export const usersBody = Joi.object({
  client_id: clientId,
  users: Joi.array().items(phone.required()).min(1).max(1000).unique().required(),
}).required();

export const messageIdBody = Joi.object({
  client_id: clientId,
  message_id: opaqueId.required(),
}).required();

/** `Idempotency-Key` (decisions.md "Beyond the spec"): at most 255 characters. */
export const idempotencyHeaders = Joi.object({
  'idempotency-key': Joi.string()
    .min(1)
    .max(255)
    .pattern(/^[\x20-\x7e]+$/, 'printable ASCII'),
}).unknown(true);

export const messageQuery = Joi.object({ client_id: clientId });
export const messagePath = Joi.object({ message_id: opaqueId.required() });
