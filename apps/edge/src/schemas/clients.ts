import Joi from 'joi';
import { EVENT_TYPES } from '@gateway/events';
import { httpUrl, providerId, uuid } from './common';

/** `webhook_events` of a client: the types its webhook receives; absent, null or empty: every type. */
export const webhookEvents = Joi.array()
  .items(Joi.string().valid(...EVENT_TYPES))
  .max(EVENT_TYPES.length)
  .unique()
  .allow(null);

export const registerBody = Joi.object({
  display_name: Joi.string().trim().min(1).max(200).required(),
  external_id: Joi.string().max(255),
  webhook_url: httpUrl,
  success_redirect_url: httpUrl,
  failure_redirect_url: httpUrl,
  business_account_id: providerId,
  phone_number_id: providerId,
  access_token: Joi.string().min(1).max(4096),
  provider_business_id: providerId,
  catalog_id: providerId,
})
  // the business-account fields come together or not at all (without them: a pending signup placeholder)
  .and('business_account_id', 'phone_number_id', 'access_token')
  .required();

export const patchBody = Joi.object({
  display_name: Joi.string().trim().min(1).max(200),
  external_id: Joi.string().max(255).allow(null),
  webhook_url: httpUrl.allow(null),
  webhook_events: webhookEvents,
  // campaigns' opt-outs (issue 26): inbound texts that are exactly one of these put the sender on the opt-out list
  stop_keywords: Joi.array().items(Joi.string().trim().min(1).max(64)).max(20).unique(),
  // "active" enables a disabled webhook again; "disabled" stops deliveries on purpose
  webhook_status: Joi.string().valid('active', 'disabled'),
  is_active: Joi.boolean(),
  // marketing templates: "auto" goes to the Marketing Messages API once onboarded, "cloud_api" always to /messages
  marketing_messages: Joi.string().valid('auto', 'cloud_api'),
}).required();

export const idPath = Joi.object({ id: uuid.required() });
export const listQuery = Joi.object({ limit: Joi.number().integer().min(1).max(100).default(20), cursor: Joi.string().max(512) });
