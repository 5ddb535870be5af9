import Joi from 'joi';

/*
 * The joi pieces message kinds are made of. Every limit of decisions.md ("Request fields the spec does not
 * show") and of the provider reference is checked by them, so a bad send is a 422 listing every problem before
 * any service or provider call. Every array has a maximum and every object a closed or bounded set of keys.
 * The edge's other routes use the identifiers and URLs here too (apps/edge/src/schemas/common.ts).
 */

/** Absolute http(s) URL, as webhook and redirect URLs must be. */
export const httpUrl = Joi.string()
  .max(2048)
  .uri({ scheme: ['http', 'https'] });
/** Absolute https URL: where a browser is sent outside development mode, and every link the provider fetches. */
export const httpsUrl = Joi.string()
  .max(2048)
  .uri({ scheme: ['https'] });
export const uuid = Joi.string().guid({ version: ['uuidv4', 'uuidv5', 'uuidv7', 'uuidv1'] });
export const clientId = uuid.required();
/** Recipient: digits with an optional leading +, 7–15 digits. */
export const phone = Joi.string().pattern(/^\+?\d{7,15}$/, 'phone number');
export const providerId = Joi.string().pattern(/^[A-Za-z0-9_.:-]{1,128}$/, 'identifier');
/** A provider message id (wamid.…) or call id (wacid.…): opaque, but bounded and without surrounding spaces. */
export const opaqueId = Joi.string().trim().max(512);

export const text = (max: number) => Joi.string().max(max);
/** Identifiers and titles the provider refuses with leading or trailing spaces. */
export const trimmed = (max: number) => Joi.string().trim().max(max);

/** A sticker link: https, and its path must end in .webp (the provider takes WebP stickers only). */
export const webpUrl = httpsUrl
  .custom((v: string, helpers) => (URL.canParse(v) && /\.webp$/i.test(new URL(v).pathname) ? v : helpers.error('custom.not_webp')))
  .messages({ 'custom.not_webp': '{{#label}} must point to a WebP image (its path must end in .webp)' });

/** joi's validation state: where the value sits, and how to report an error further down. */
interface JoiState {
  path: Array<string | number>;
  localize(path: Array<string | number>): unknown;
}

/** Raises `custom.duplicate_item` at the `field` of the first item that repeats an earlier one's. */
export function uniqueBy(field: string) {
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
export function totalAtMost(field: string, limit: number) {
  return (sections: Array<Record<string, unknown>>, helpers: Joi.CustomHelpers) => {
    const count = sections.reduce((n, s) => n + (Array.isArray(s?.[field]) ? (s[field] as unknown[]).length : 0), 0);
    return count > limit ? helpers.error('custom.too_many_items', { limit, count, field }) : sections;
  };
}

export const duplicateMessage = { 'custom.duplicate_item': '{{#label}} must be unique: {{#field}} {{#value}} is already used by item {{#first_index}}' };
export const totalMessage = { 'custom.too_many_items': '{{#label}} may hold at most {{#limit}} {{#field}} in total across sections, got {{#count}}' };

/** `{type: "text", text}` or a media header `{type: "image"|"video"|"document", url, filename?}` (filename: documents only). */
export const mediaHeader = Joi.object({
  type: Joi.string().valid('text', 'image', 'video', 'document').required(),
  text: Joi.when('type', { is: 'text', then: text(60).required(), otherwise: Joi.forbidden() }),
  url: Joi.when('type', { is: Joi.valid('image', 'video', 'document'), then: httpsUrl.required(), otherwise: Joi.forbidden() }),
  filename: Joi.when('type', { is: 'document', then: text(240), otherwise: Joi.forbidden() }),
});

export const footer = text(60);

/**
 * A business-scoped user id (BSUID, `US.13491208655302741918`) or parent BSUID (`US.ENT.…`), as the provider's
 * webhooks give it (provider-2026.md §2.1): sent exactly as received.
 */
export const bsuid = Joi.string().pattern(/^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$/, 'business-scoped user id');

/**
 * Fields every send has: the client that sends, the recipient, and the message it quotes. The recipient is a phone
 * number (`to`), a BSUID (`recipient`), or both (the provider then delivers to `to`); without either, `to` is
 * missing.
 */
export const sendFields = {
  client_id: clientId,
  to: phone.when('recipient', { not: Joi.exist(), then: Joi.required() }),
  recipient: bsuid,
  reply_to: opaqueId,
};
