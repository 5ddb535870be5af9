import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { duplicateMessage, footer, mediaHeader, sendFields, text, trimmed, uniqueBy } from '../fields';
import { defineKind } from '../kind';
import { footerOf, headerOf, interactive, type HeaderInput } from '../provider-message';

export interface ButtonsBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  header?: HeaderInput;
  body: { type: 'text'; text: string };
  footer?: string;
  buttons: Array<{ id: string; title: string }>;
}

const buttons = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `b${i}`, title: `Button ${i}` }));
const valid = { to, body: { type: 'text', text: 'Pick one' }, buttons: buttons(2) };
const reply = (id: string, title: string) => ({ type: 'reply', reply: { id, title } });

/** Reply buttons (provider-cloud-api.md §1.3): 1–3, ids and titles unique. */
export const buttonsKind = defineKind({
  name: 'buttons',
  summary: 'Send reply buttons (1–3) with a text or media header',
  schema: Joi.object<ButtonsBody, true>({
    ...sendFields,
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
  }).required(),
  build: (b) =>
    interactive(b, b.reply_to, {
      type: 'button',
      ...headerOf(b.header),
      body: { text: b.body.text },
      ...footerOf(b.footer),
      action: { buttons: b.buttons.map((x) => reply(x.id, x.title)) },
    }),
  examples: {
    valid: [
      {
        name: 'text header and footer',
        body: { to, header: { type: 'text', text: 'Hi' }, body: { type: 'text', text: 'Pick' }, footer: 'f', buttons: [{ id: 'a', title: 'A' }] },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'button',
            header: { type: 'text', text: 'Hi' },
            body: { text: 'Pick' },
            footer: { text: 'f' },
            action: { buttons: [reply('a', 'A')] },
          },
        },
      },
      {
        name: 'image header and footer, quoting a message',
        body: {
          to,
          header: { type: 'image', url: 'https://cdn.shop.test/a.jpg' },
          body: { type: 'text', text: 'Pick one' },
          footer: 'Thanks',
          buttons: [
            { id: 'yes', title: 'Yes' },
            { id: 'no', title: 'No' },
          ],
          reply_to: 'wamid.quoted',
        },
        payload: {
          ...base,
          context: { message_id: 'wamid.quoted' },
          type: 'interactive',
          interactive: {
            type: 'button',
            header: { type: 'image', image: { link: 'https://cdn.shop.test/a.jpg' } },
            body: { text: 'Pick one' },
            footer: { text: 'Thanks' },
            action: { buttons: [reply('yes', 'Yes'), reply('no', 'No')] },
          },
        },
      },
      {
        name: 'video header',
        body: { to, header: { type: 'video', url: 'https://cdn.shop.test/a.mp4' }, body: { type: 'text', text: 'Pick' }, buttons: [{ id: 'a', title: 'A' }] },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'button',
            header: { type: 'video', video: { link: 'https://cdn.shop.test/a.mp4' } },
            body: { text: 'Pick' },
            action: { buttons: [reply('a', 'A')] },
          },
        },
      },
      {
        name: 'document header with a filename, three buttons',
        body: {
          to,
          header: { type: 'document', url: 'https://cdn.shop.test/a.pdf', filename: 'a.pdf' },
          body: { type: 'text', text: 'Pick' },
          buttons: [
            { id: 'a', title: 'A' },
            { id: 'b', title: 'B' },
            { id: 'c', title: 'C' },
          ],
        },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'button',
            header: { type: 'document', document: { link: 'https://cdn.shop.test/a.pdf', filename: 'a.pdf' } },
            body: { text: 'Pick' },
            action: { buttons: [reply('a', 'A'), reply('b', 'B'), reply('c', 'C')] },
          },
        },
      },
    ],
    invalid: [
      { name: '4 buttons', body: { ...valid, buttons: buttons(4) }, loc: ['body', 'buttons'], type: 'too_many_items' },
      {
        name: 'a 21-character button title',
        body: { ...valid, buttons: [{ id: 'a', title: 'x'.repeat(21) }] },
        loc: ['body', 'buttons', '0', 'title'],
        type: 'too_long',
      },
      {
        name: 'duplicate button ids',
        body: {
          ...valid,
          buttons: [
            { id: 'a', title: 'A' },
            { id: 'a', title: 'B' },
          ],
        },
        loc: ['body', 'buttons', '1', 'id'],
        type: 'duplicate_item',
      },
      {
        name: 'duplicate button titles',
        body: {
          ...valid,
          buttons: [
            { id: 'a', title: 'A' },
            { id: 'b', title: 'A' },
          ],
        },
        loc: ['body', 'buttons', '1', 'title'],
        type: 'duplicate_item',
      },
      { name: 'no buttons', body: { ...valid, buttons: [] }, loc: ['body', 'buttons'], type: 'too_short' },
      { name: 'buttons as a string', body: { ...valid, buttons: 'yes,no' }, loc: ['body', 'buttons'], type: 'list_type' },
      { name: 'a 1025-character body', body: { ...valid, body: { type: 'text', text: 'x'.repeat(1025) } }, loc: ['body', 'body', 'text'], type: 'too_long' },
      {
        name: 'a 61-character text header',
        body: { ...valid, header: { type: 'text', text: 'x'.repeat(61) } },
        loc: ['body', 'header', 'text'],
        type: 'too_long',
      },
      { name: 'a media header without url', body: { ...valid, header: { type: 'image' } }, loc: ['body', 'header', 'url'], type: 'missing' },
      {
        name: 'a filename on an image header',
        body: { ...valid, header: { type: 'image', url: 'https://x.test/a.png', filename: 'a.png' } },
        loc: ['body', 'header', 'filename'],
        type: 'extra_forbidden',
      },
      {
        name: 'an http media header',
        body: { ...valid, header: { type: 'video', url: 'http://x.test/a.mp4' } },
        loc: ['body', 'header', 'url'],
        type: 'url_scheme',
      },
      { name: 'a 61-character footer', body: { ...valid, footer: 'x'.repeat(61) }, loc: ['body', 'footer'], type: 'too_long' },
      { name: 'a recipient that is not a number', body: { ...valid, to: 'bob' }, loc: ['body', 'to'], type: 'string_pattern_mismatch' },
      { name: 'a client_id that is not a UUID', body: { ...valid, client_id: 'abc' }, loc: ['body', 'client_id'], type: 'invalid_uuid' },
    ],
  },
});
