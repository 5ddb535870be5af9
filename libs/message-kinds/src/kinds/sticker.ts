import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { sendFields, webpUrl } from '../fields';
import { defineKind } from '../kind';
import { message } from '../provider-message';

export interface StickerBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  url: string;
}

/** A WebP sticker by link (§1); by media id it is a `send-media` of type sticker. */
export const stickerKind = defineKind({
  name: 'sticker',
  summary: 'Send a WebP sticker by URL',
  schema: Joi.object<StickerBody, true>({
    ...sendFields,
    url: webpUrl.required(),
  }).required(),
  build: (b) => message(b, b.reply_to, 'sticker', { link: b.url }),
  examples: {
    valid: [
      {
        name: 'by link',
        body: { to, url: 'https://cdn.shop.test/s.webp' },
        payload: { ...base, type: 'sticker', sticker: { link: 'https://cdn.shop.test/s.webp' } },
      },
    ],
    invalid: [
      { name: 'a non-WebP sticker', body: { to, url: 'https://cdn.test/sticker.png' }, loc: ['body', 'url'], type: 'not_webp' },
      { name: 'an http sticker', body: { to, url: 'http://cdn.test/sticker.webp' }, loc: ['body', 'url'], type: 'url_scheme' },
    ],
  },
});
