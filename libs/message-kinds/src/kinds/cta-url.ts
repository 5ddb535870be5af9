import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { footer, httpsUrl, mediaHeader, sendFields, text, trimmed } from '../fields';
import { defineKind, type ProviderFileGap } from '../kind';
import { footerOf, headerOf, interactive, type HeaderInput } from '../provider-message';

export interface CtaUrlBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  body: string;
  button_text: string;
  /** https only. */
  url: string;
  header?: HeaderInput;
  footer?: string;
}

const valid = { to, body: 'Go', button_text: 'Open', url: 'https://shop.test' };

/**
 * provider-supplement.md §1: the file has no cta_url branch. Only the missing enum value and the missing
 * ActionObject branch are excused; header, body, footer and the envelope are checked.
 */
const gaps: ProviderFileGap[] = [
  {
    instancePath: /^\/interactive\/type$/,
    keyword: 'enum',
    schemaPath: /^#\/properties\/type\/enum$/,
    why: "supplement §1: interactive.type cta_url exists at the provider; the file's enum predates it",
  },
  ...(['required', 'enum', 'oneOf'] as const).map((keyword) => ({
    instancePath: /^\/interactive\/action(\/.*)?$/,
    keyword,
    schemaPath: /^#\/oneOf(\/|$)/,
    why: `supplement §1: action {name: cta_url, parameters: {display_text, url}} has no ActionObject branch in the file (reported as ${keyword})`,
  })),
];

/** An interactive call-to-action button that opens a URL (supplement §1). */
export const ctaUrlKind = defineKind({
  name: 'cta_url',
  summary: 'Send a call-to-action URL button',
  schema: Joi.object<CtaUrlBody, true>({
    ...sendFields,
    body: text(1024).required(),
    button_text: trimmed(20).required(),
    url: httpsUrl.required(),
    header: mediaHeader,
    footer,
  }).required(),
  build: (b) =>
    interactive(b, b.reply_to, {
      type: 'cta_url',
      ...headerOf(b.header),
      body: { text: b.body },
      ...footerOf(b.footer),
      action: { name: 'cta_url', parameters: { display_text: b.button_text, url: b.url } },
    }),
  examples: {
    valid: [
      {
        name: 'an image header and footer',
        body: {
          to,
          body: 'Track your parcel',
          button_text: 'Track',
          url: 'https://shop.test/track/42',
          header: { type: 'image', url: 'https://cdn.shop.test/box.jpg' },
          footer: 'Shop',
        },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'cta_url',
            header: { type: 'image', image: { link: 'https://cdn.shop.test/box.jpg' } },
            body: { text: 'Track your parcel' },
            footer: { text: 'Shop' },
            action: { name: 'cta_url', parameters: { display_text: 'Track', url: 'https://shop.test/track/42' } },
          },
        },
      },
      {
        name: 'a text header',
        body: { to, body: 'See the menu', button_text: 'Menu', url: 'https://shop.test/menu', header: { type: 'text', text: 'Lunch' } },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'cta_url',
            header: { type: 'text', text: 'Lunch' },
            body: { text: 'See the menu' },
            action: { name: 'cta_url', parameters: { display_text: 'Menu', url: 'https://shop.test/menu' } },
          },
        },
      },
      {
        name: 'a document header',
        body: {
          to,
          body: 'Invoice',
          button_text: 'Pay',
          url: 'https://shop.test/p',
          header: { type: 'document', url: 'https://cdn.shop.test/i.pdf', filename: 'i.pdf' },
        },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'cta_url',
            header: { type: 'document', document: { link: 'https://cdn.shop.test/i.pdf', filename: 'i.pdf' } },
            body: { text: 'Invoice' },
            action: { name: 'cta_url', parameters: { display_text: 'Pay', url: 'https://shop.test/p' } },
          },
        },
      },
      {
        name: 'no header',
        body: { to, body: 'Track', button_text: 'Track', url: 'https://shop.test/t' },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'cta_url',
            body: { text: 'Track' },
            action: { name: 'cta_url', parameters: { display_text: 'Track', url: 'https://shop.test/t' } },
          },
        },
      },
    ],
    invalid: [
      { name: 'a 21-character CTA button', body: { ...valid, button_text: 'x'.repeat(21) }, loc: ['body', 'button_text'], type: 'too_long' },
      { name: 'an http CTA url', body: { ...valid, url: 'http://shop.test' }, loc: ['body', 'url'], type: 'url_scheme' },
      { name: 'a 1025-character CTA body', body: { ...valid, body: 'x'.repeat(1025) }, loc: ['body', 'body'], type: 'too_long' },
      { name: 'a 61-character CTA footer', body: { ...valid, footer: 'x'.repeat(61) }, loc: ['body', 'footer'], type: 'too_long' },
      {
        name: 'an http CTA image header',
        body: { ...valid, header: { type: 'image', url: 'http://cdn.test/a.png' } },
        loc: ['body', 'header', 'url'],
        type: 'url_scheme',
      },
      { name: 'a CTA without url', body: { to, body: 'Go', button_text: 'Open' }, loc: ['body', 'url'], type: 'missing' },
    ],
  },
  providerFileGaps: gaps,
});
