import { invalidParameter, parameterValueInvalid } from '../errors';
import { arr, num, obj, oneOf, str } from './checks';
import { BSUID } from '../users';
import { validateInteractive, type InteractiveContext } from './interactive';

type Json = Record<string, unknown>;

export const MESSAGE_TYPES = ['text', 'image', 'audio', 'video', 'document', 'sticker', 'location', 'contacts', 'reaction', 'interactive', 'template'] as const;

/** Supplement §1 and the provider's pages: phones CELL, MAIN, IPHONE, HOME, WORK (its own example: MOBILE); the rest HOME or WORK. */
const PHONE_TYPES = ['CELL', 'MAIN', 'IPHONE', 'HOME', 'WORK', 'MOBILE'];
const CONTACT_TYPES = ['HOME', 'WORK'];

/** Contact cards (supplement §1): `name.formatted_name` required, each list item with its key field, types from the provider's list. */
function validateContacts(content: unknown): void {
  arr(content, 'contacts', { min: 1, max: 5 }).forEach((c, n) => {
    const card = obj(c, `contacts[${n}]`);
    const path = `contacts[${n}]`;
    for (const k of Object.keys(card)) {
      if (!['name', 'phones', 'emails', 'urls', 'addresses', 'org', 'birthday'].includes(k)) throw invalidParameter(`${path}.${k} is not a valid parameter`);
    }
    str(obj(card.name, `${path}.name`).formatted_name, `${path}.name.formatted_name`);
    const items = (key: string, field: string | null) => {
      if (card[key] === undefined) return;
      arr(card[key], `${path}.${key}`).forEach((item, k) => {
        const o = obj(item, `${path}.${key}[${k}]`);
        if (field) str(o[field], `${path}.${key}[${k}].${field}`);
        if (o.type !== undefined) oneOf(o.type, `${path}.${key}[${k}].type`, key === 'phones' ? PHONE_TYPES : CONTACT_TYPES);
      });
    };
    items('phones', 'phone');
    items('emails', 'email');
    items('urls', 'url');
    items('addresses', null);
    if (card.org !== undefined) obj(card.org, `${path}.org`);
    if (card.birthday !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(String(str(card.birthday, `${path}.birthday`))))
      throw invalidParameter(`${path}.birthday must be YYYY-MM-DD`);
  });
}

/** Validates a message send (§1) the way the provider does; returns the message type. */
export function validateMessage(b: Json, ctx: InteractiveContext): string {
  if (b.messaging_product !== 'whatsapp') throw invalidParameter('messaging_product must be "whatsapp"');
  if (b.recipient_type !== undefined) oneOf(b.recipient_type, 'recipient_type', ['individual', 'group']);
  // provider-2026.md §2.2: a phone number (`to`), a BSUID (`recipient`), or both (the provider takes `to`)
  const to = str(b.to, 'to', { required: b.recipient === undefined });
  if (to !== undefined && !/^\+?\d{5,20}$/.test(to)) throw invalidParameter('to must be a phone number or WhatsApp id');
  const recipient = str(b.recipient, 'recipient', { required: false });
  if (recipient !== undefined && !BSUID.test(recipient)) throw invalidParameter('recipient must be a business-scoped user id (BSUID) or parent BSUID');
  if (b.context !== undefined) str(obj(b.context, 'context').message_id, 'context.message_id');
  const type = oneOf(b.type, 'type', MESSAGE_TYPES);
  const content = b[type];
  switch (type) {
    case 'text': {
      const t = obj(content, 'text');
      str(t.body, 'text.body', { max: 4096 });
      if (t.preview_url !== undefined && typeof t.preview_url !== 'boolean') throw invalidParameter('text.preview_url must be a boolean');
      break;
    }
    case 'reaction': {
      const r = obj(content, 'reaction');
      str(r.message_id, 'reaction.message_id');
      str(r.emoji, 'reaction.emoji', { allowEmpty: true, max: 10 });
      break;
    }
    case 'location': {
      const l = obj(content, 'location');
      num(l.latitude, 'location.latitude', -90, 90);
      num(l.longitude, 'location.longitude', -180, 180);
      str(l.name, 'location.name', { required: false, max: 1000 });
      str(l.address, 'location.address', { required: false, max: 1000 });
      break;
    }
    case 'sticker':
    case 'image':
    case 'audio':
    case 'video':
    case 'document': {
      const m = obj(content, type);
      if ((m.id === undefined) === (m.link === undefined)) throw invalidParameter(`${type} needs exactly one of id or link`);
      if (m.link !== undefined) {
        const link = str(m.link, `${type}.link`)!;
        if (!/^https?:\/\//.test(link)) throw invalidParameter(`${type}.link must be an http(s) URL`);
        if (type === 'sticker' && !/\.webp$/i.test(new URL(link).pathname)) throw invalidParameter('sticker.link must point to a WebP image (.webp)');
      }
      if (m.id !== undefined) {
        const id = str(m.id, `${type}.id`)!;
        if (ctx.media && !ctx.media(id)) throw parameterValueInvalid(`${type}.id ${id} is not a media id of this phone number`);
      }
      // supplement §1: captions on image, video and document only; filename on documents only
      const allowed = new Set(['id', 'link', ...(type === 'audio' || type === 'sticker' ? [] : ['caption']), ...(type === 'document' ? ['filename'] : [])]);
      for (const k of Object.keys(m)) if (!allowed.has(k)) throw invalidParameter(`${type}.${k} is not a valid parameter for ${type} messages`);
      str(m.caption, `${type}.caption`, { required: false, max: 1024 });
      str(m.filename, `${type}.filename`, { required: false, max: 240 });
      break;
    }
    case 'template': {
      const t = obj(content, 'template');
      str(t.name, 'template.name', { max: 512 });
      str(obj(t.language, 'template.language').code, 'template.language.code', { max: 15 });
      if (t.components !== undefined) {
        arr(t.components, 'template.components').forEach((c, n) => {
          const comp = obj(c, `template.components[${n}]`);
          const ctype = oneOf(comp.type, `template.components[${n}].type`, ['header', 'body', 'button', 'footer', 'carousel', 'limited_time_offer']);
          if (ctype === 'button') {
            str(comp.sub_type, `template.components[${n}].sub_type`);
            str(comp.index, `template.components[${n}].index`);
          }
          if (comp.parameters !== undefined) {
            arr(comp.parameters, `template.components[${n}].parameters`).forEach((p, k) =>
              oneOf(obj(p, `template.components[${n}].parameters[${k}]`).type, `template.components[${n}].parameters[${k}].type`, [
                'text',
                'currency',
                'date_time',
                'image',
                'video',
                'document',
                'payload',
                'action',
                'location',
                'coupon_code',
                'product',
              ]),
            );
          }
        });
      }
      break;
    }
    case 'contacts':
      validateContacts(content);
      break;
    case 'interactive':
      return `interactive.${validateInteractive(content, ctx)}`;
  }
  return type;
}
