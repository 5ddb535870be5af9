import Joi from 'joi';
import { bsuid, clientId, phone, uuid } from './common';

/** Most recipients a campaign's create body or one JSON list of recipients holds (more: further lists or a CSV). */
export const MAX_CAMPAIGN_RECIPIENTS = 100_000;
/** Most variables a recipient fills (a template's text has at most 100, template-rules). */
const MAX_PARAMETERS = 100;
const value = Joi.string().min(1).max(1024);

/** Positional values, in order, or named values (`{first_name: "Ann"}`) of the template's body variables. */
const parameters = Joi.alternatives().try(
  Joi.array().items(value).min(1).max(MAX_PARAMETERS),
  Joi.object()
    .pattern(/^[a-z_][a-z0-9_]{0,127}$/, value)
    .min(1)
    .max(MAX_PARAMETERS),
);

/** A recipient: a phone number (`to`) or a business-scoped user id (`recipient`, BSUID); with both, `to` is sent to. */
export const campaignRecipient = Joi.object({ to: phone, recipient: bsuid, parameters }).or('to', 'recipient');

/** A template component of every send of the campaign (the provider's shape, checked against the local template copy). */
const component = Joi.object({ type: Joi.string().valid('header', 'body', 'button', 'footer').required() })
  .unknown(true)
  .max(10);

export const createCampaignBody = Joi.object({
  client_id: clientId,
  name: Joi.string().min(1).max(256).required(),
  template_name: Joi.string().max(512).required(),
  lang: Joi.string()
    .pattern(/^[a-z]{2,3}(_[A-Z]{2,4})?$/, 'language code')
    .required(),
  components: Joi.array().items(component).max(20),
  recipients: Joi.array().items(campaignRecipient).max(MAX_CAMPAIGN_RECIPIENTS),
  schedule_at: Joi.string().isoDate().max(64),
  rate_per_second: Joi.number().integer().min(1).max(1000),
}).required();

export const addRecipientsBody = Joi.object({
  recipients: Joi.array().items(campaignRecipient).min(1).max(MAX_CAMPAIGN_RECIPIENTS).required(),
}).required();

export const campaignPath = Joi.object({ id: uuid.required() });
export const campaignActionPath = Joi.object({ id: uuid.required(), action: Joi.string().valid('start', 'pause', 'resume', 'cancel').required() });
export const listCampaignsQuery = Joi.object({
  client_id: clientId,
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(2048),
});
export const RECIPIENT_STATUSES = ['queued', 'sent', 'delivered', 'read', 'failed', 'skipped', 'deferred', 'unknown'] as const;
export const listRecipientsQuery = Joi.object({
  status: Joi.string().valid(...RECIPIENT_STATUSES),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(2048),
});

/** A user of an opt-out list: a phone number or a business-scoped user id (BSUID). */
const user = Joi.string().pattern(/^(\+?\d{7,15}|[A-Z]{2}\.[\x21-\x7e]{1,120})$/, 'phone number or business-scoped user id');
export const optOutsPath = Joi.object({ id: uuid.required() });
export const listOptOutsQuery = Joi.object({ limit: Joi.number().integer().min(1).max(100).default(20), cursor: Joi.string().max(2048) });
export const optOutsBody = Joi.object({ users: Joi.array().items(user).min(1).max(1000).required() }).required();
