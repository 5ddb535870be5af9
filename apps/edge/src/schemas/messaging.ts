import Joi from 'joi';
import { clientId, httpUrl, phone, providerId } from './common';

/*
 * Request bodies of /api/messaging/* and /api/call/accept. Every limit of decisions.md ("Request fields the
 * spec does not show") and of the provider reference is checked here, so a bad request is a 422 listing
 * every problem before any service or provider call.
 */

/** A provider message id (wamid.…) or call id (wacid.…): opaque, but bounded and without surrounding spaces. */
const opaqueId = Joi.string().trim().max(512);

const text = (max: number) => Joi.string().max(max);
/** Identifiers and titles the provider refuses with leading or trailing spaces. */
const trimmed = (max: number) => Joi.string().trim().max(max);

const httpsUrl = Joi.string().max(2048).uri({ scheme: ['https'] });

/** A sticker link: https, and its path must end in .webp (the provider takes WebP stickers only). */
const webpUrl = httpsUrl
  .custom((v: string, helpers) => (URL.canParse(v) && /\.webp$/i.test(new URL(v).pathname) ? v : helpers.error('custom.not_webp')))
  .messages({ 'custom.not_webp': '{{#label}} must point to a WebP image (its path must end in .webp)' });

/** joi's validation state: where the value sits, and how to report an error further down. */
interface JoiState {
  path: Array<string | number>;
  localize(path: Array<string | number>): unknown;
}

/** Raises `custom.duplicate_item` at the `field` of the first item that repeats an earlier one's. */
function uniqueBy(field: string) {
  return (items: Array<Record<string, unknown>>, helpers: Joi.CustomHelpers) => {
    const state = helpers.state as unknown as JoiState;
    const seen = new Map<unknown, number>();
    for (let i = 0; i < items.length; i++) {
      const v = items[i]?.[field];
      if (typeof v !== 'string') continue;
      if (seen.has(v)) {
        return helpers.error('custom.duplicate_item', { value: v, field, first_index: seen.get(v) }, state.localize([...state.path, i, field]) as never);
      }
      seen.set(v, i);
    }
    return items;
  };
}

/** Raises `custom.too_many_items` on the sections array when its items hold more than `limit` `field` entries in total. */
function totalAtMost(field: string, limit: number) {
  return (sections: Array<Record<string, unknown>>, helpers: Joi.CustomHelpers) => {
    const count = sections.reduce((n, s) => n + (Array.isArray(s?.[field]) ? (s[field] as unknown[]).length : 0), 0);
    return count > limit ? helpers.error('custom.too_many_items', { limit, count, field }) : sections;
  };
}

const duplicateMessage = { 'custom.duplicate_item': '{{#label}} must be unique: {{#field}} {{#value}} is already used by item {{#first_index}}' };
const totalMessage = { 'custom.too_many_items': '{{#label}} may hold at most {{#limit}} {{#field}} in total across sections, got {{#count}}' };

/** `{type: "text", text}` or a media header `{type: "image"|"video"|"document", url, filename?}` (filename: documents only). */
const mediaHeader = Joi.object({
  type: Joi.string().valid('text', 'image', 'video', 'document').required(),
  text: Joi.when('type', { is: 'text', then: text(60).required(), otherwise: Joi.forbidden() }),
  url: Joi.when('type', { is: Joi.valid('image', 'video', 'document'), then: httpsUrl.required(), otherwise: Joi.forbidden() }),
  filename: Joi.when('type', { is: 'document', then: text(240), otherwise: Joi.forbidden() }),
});

/** A text header, given as a string or as `{type: "text", text}`. */
const textHeader = Joi.alternatives().conditional(Joi.string(), {
  then: text(60),
  otherwise: Joi.object({ type: Joi.string().valid('text').required(), text: text(60).required() }),
});

const footer = text(60);

/** Fields every send has. */
const send = {
  client_id: clientId,
  to: phone.required(),
  reply_to: opaqueId,
};

export const sendButtonsBody = Joi.object({
  ...send,
  header: mediaHeader,
  body: Joi.object({ type: Joi.string().valid('text').required(), text: text(1024).required() }).required(),
  footer,
  buttons: Joi.array()
    .items(Joi.object({ id: trimmed(256).required(), title: trimmed(20).required() }))
    .min(1)
    .max(3)
    .required()
    .custom(uniqueBy('id'))
    .custom(uniqueBy('title'))
    .messages(duplicateMessage),
}).required();

export const sendListBody = Joi.object({
  ...send,
  body: text(4096).required(),
  button_text: trimmed(20).default('Options'),
  header: textHeader,
  footer,
  sections: Joi.array()
    .items(
      Joi.object({
        // required when there is more than one section
        title: text(24).when(Joi.ref('/sections'), { is: Joi.array().min(2), then: Joi.required() }),
        rows: Joi.array()
          .items(Joi.object({ id: trimmed(200).required(), title: text(24).required(), description: text(72) }))
          .min(1)
          .max(10)
          .required(),
      }),
    )
    .min(1)
    .max(10)
    .required()
    .custom(totalAtMost('rows', 10))
    .messages(totalMessage),
}).required();

export const sendProductsBody = Joi.object({
  ...send,
  title: text(60).required(),
  body: text(1024).required(),
  footer,
  catalog_id: trimmed(128),
  sections: Joi.array()
    .items(
      Joi.object({
        title: text(24).when(Joi.ref('/sections'), { is: Joi.array().min(2), then: Joi.required() }),
        skus: Joi.array().items(trimmed(256)).min(1).max(30).required(),
      }),
    )
    .min(1)
    .max(10)
    .required()
    .custom(totalAtMost('skus', 30))
    .messages(totalMessage),
}).required();

export const sendFlowBody = Joi.object({
  ...send,
  body: text(1024).required(),
  button_text: trimmed(20).required(),
  flow_id: trimmed(128).required(),
  flow_token: text(1024),
  flow_action: Joi.string().valid('navigate', 'data_exchange').default('navigate'),
  flow_action_payload: Joi.when('flow_action', {
    is: 'data_exchange',
    then: Joi.forbidden(),
    otherwise: Joi.object({ screen: trimmed(128).required(), data: Joi.object().min(1).unknown(true) }),
  }),
  mode: Joi.string().valid('published', 'draft').default('published'),
  header: mediaHeader,
  footer,
}).required();

export const sendReactionBody = Joi.object({
  ...send,
  message_id: opaqueId.required(),
  // "" removes the reaction
  emoji: Joi.string().max(32).allow('').required(),
}).required();

const templateComponent = Joi.object({
  type: Joi.string().valid('header', 'body', 'button', 'footer', 'carousel', 'limited_time_offer').required(),
  sub_type: Joi.when('type', { is: 'button', then: Joi.string().max(64).required(), otherwise: Joi.forbidden() }),
  // the provider wants the button's position as a string ("0")
  index: Joi.when('type', { is: 'button', then: Joi.string().pattern(/^\d{1,2}$/, 'index').required(), otherwise: Joi.forbidden() }),
  parameters: Joi.array()
    .items(Joi.object({ type: Joi.string().valid('text', 'currency', 'date_time', 'image', 'video', 'document', 'location', 'payload', 'action', 'coupon_code', 'limited_time_offer', 'product').required() }).unknown(true))
    .max(100),
}).unknown(true);

export const sendTemplateBody = Joi.object({
  ...send,
  template_name: Joi.string().pattern(/^[a-z0-9_]{1,512}$/, 'template name').required(),
  lang: Joi.string().pattern(/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})?$/, 'language code').required(),
  components: Joi.array().items(templateComponent).max(20),
}).required();

export const sendLocationBody = Joi.object({
  ...send,
  latitude: Joi.number().min(-90).max(90).required(),
  longitude: Joi.number().min(-180).max(180).required(),
  name: text(1000),
  address: text(1000),
}).required();

export const sendStickerBody = Joi.object({
  ...send,
  url: webpUrl.required(),
}).required();

export const sendCatalogBody = Joi.object({
  ...send,
  body: text(1024).required(),
  footer,
  thumbnail_product_retailer_id: trimmed(256),
}).required();

export const sendTextBody = Joi.object({
  ...send,
  text: text(4096).required(),
  preview_url: Joi.boolean().default(false),
}).required();

const MEDIA_TYPES = ['image', 'video', 'audio', 'document', 'sticker'] as const;

/**
 * Media by link or by media id: exactly one of `url` and `media_id` (each problem reported at its own field,
 * so a request with both or neither still gets every other problem listed too).
 */
export const sendMediaBody = Joi.object({
  ...send,
  type: Joi.string()
    .valid(...MEDIA_TYPES)
    .required(),
  url: Joi.when('media_id', {
    is: Joi.exist(),
    then: Joi.forbidden().messages({ 'any.unknown': '{{#label}} is not allowed together with media_id: give exactly one of them' }),
    otherwise: Joi.when('type', { is: 'sticker', then: webpUrl, otherwise: httpsUrl })
      .required()
      .messages({ 'any.required': '{{#label}} or media_id is required' }),
  }),
  media_id: providerId,
  caption: Joi.when('type', {
    is: Joi.valid('audio', 'sticker'),
    then: Joi.forbidden().messages({ 'any.unknown': '{{#label}} is not allowed for audio or sticker messages' }),
    otherwise: text(1024),
  }),
  filename: Joi.when('type', {
    is: 'document',
    then: text(240),
    otherwise: Joi.forbidden().messages({ 'any.unknown': '{{#label}} is only allowed for documents' }),
  }),
}).required();

/**
 * Contact cards. Where the provider's pages and its OpenAPI file disagree the file wins (issue 19): at most
 * 5 cards (the pages say 10) and `type` HOME or WORK (the pages also show CELL, MAIN, IPHONE).
 */
const contactType = Joi.string().valid('HOME', 'WORK');
const isoDate = Joi.string()
  .pattern(/^\d{4}-\d{2}-\d{2}$/, 'YYYY-MM-DD')
  .custom((v: string, helpers) => (new Date(`${v}T00:00:00Z`).toISOString().startsWith(v) ? v : helpers.error('custom.date_invalid')))
  .messages({ 'custom.date_invalid': '{{#label}} is not a calendar date' });
const contactCard = Joi.object({
  name: Joi.object({
    formatted_name: text(512).required(),
    first_name: text(256),
    last_name: text(256),
    middle_name: text(256),
    suffix: text(64),
    prefix: text(64),
  }).required(),
  phones: Joi.array()
    .items(Joi.object({ phone: Joi.string().max(64).required(), type: contactType, wa_id: Joi.string().pattern(/^\d{5,20}$/, 'WhatsApp id') }))
    .max(20),
  emails: Joi.array()
    .items(Joi.object({ email: Joi.string().max(320).email({ tlds: { allow: false } }).required(), type: contactType }))
    .max(20),
  urls: Joi.array()
    .items(Joi.object({ url: httpUrl.required(), type: contactType }))
    .max(20),
  addresses: Joi.array()
    .items(
      Joi.object({
        street: text(512),
        city: text(256),
        state: text(256),
        zip: text(64),
        country: text(256),
        country_code: Joi.string().pattern(/^[A-Za-z]{2}$/, 'two-letter country code'),
        type: contactType,
      }),
    )
    .max(20),
  org: Joi.object({ company: text(256), department: text(256), title: text(256) }),
  birthday: isoDate,
});

export const sendContactsBody = Joi.object({
  ...send,
  contacts: Joi.array().items(contactCard).min(1).max(5).required(),
}).required();

export const sendCtaUrlBody = Joi.object({
  ...send,
  body: text(1024).required(),
  button_text: trimmed(20).required(),
  url: httpsUrl.required(),
  header: mediaHeader,
  footer,
}).required();

export const sendLocationRequestBody = Joi.object({
  ...send,
  body: text(1024).required(),
}).required();

export const usersBody = Joi.object({
  client_id: clientId,
  users: Joi.array().items(phone.required()).min(1).max(1000).unique().required(),
}).required();

export const messageIdBody = Joi.object({
  client_id: clientId,
  message_id: opaqueId.required(),
}).required();

export const acceptCallBody = Joi.object({
  client_id: clientId,
  call_id: opaqueId.required(),
  sdp: Joi.string().max(256 * 1024).required(),
}).required();

/** `Idempotency-Key` (decisions.md "Beyond the spec"): at most 255 characters. */
export const idempotencyHeaders = Joi.object({
  'idempotency-key': Joi.string().min(1).max(255).pattern(/^[\x20-\x7e]+$/, 'printable ASCII'),
}).unknown(true);

export const messageQuery = Joi.object({ client_id: clientId });
export const messagePath = Joi.object({ message_id: opaqueId.required() });
