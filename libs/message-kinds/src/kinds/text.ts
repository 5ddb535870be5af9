import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { sendFields, text } from '../fields';
import { defineKind } from '../kind';
import { message } from '../provider-message';

export interface TextBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  text: string;
  /** Whether the provider renders a preview of the first URL; defaults to false. */
  preview_url: boolean;
}

/** A text (§1.12); `preview_url` is always sent so the provider never guesses. */
export const textKind = defineKind({
  name: 'text',
  summary: 'Send a text message',
  schema: Joi.object<TextBody, true>({
    ...sendFields,
    text: text(4096).required(),
    preview_url: Joi.boolean().default(false),
  }).required(),
  build: (b) => message(b, b.reply_to, 'text', { body: b.text, preview_url: b.preview_url }),
  examples: {
    valid: [
      {
        name: 'with a link preview',
        body: { to, text: 'Your order shipped: https://shop.test/o/1', preview_url: true },
        payload: { ...base, type: 'text', text: { body: 'Your order shipped: https://shop.test/o/1', preview_url: true } },
      },
      {
        name: 'without preview_url, quoting a message',
        body: { to, text: 'Hello', reply_to: 'wamid.quoted' },
        payload: { ...base, context: { message_id: 'wamid.quoted' }, type: 'text', text: { body: 'Hello', preview_url: false } },
      },
    ],
    invalid: [
      { name: 'a 4097-character text', body: { to, text: 'x'.repeat(4097) }, loc: ['body', 'text'], type: 'too_long' },
      { name: 'an empty text', body: { to, text: '' }, loc: ['body', 'text'], type: 'string_too_short' },
      { name: 'a text without text', body: { to }, loc: ['body', 'text'], type: 'missing' },
      { name: 'preview_url as a string', body: { to, text: 'hi', preview_url: 'yes' }, loc: ['body', 'preview_url'], type: 'bool_type' },
    ],
  },
});
