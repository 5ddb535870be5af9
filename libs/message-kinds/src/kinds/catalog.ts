import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { footer, sendFields, text, trimmed } from '../fields';
import { defineKind } from '../kind';
import { footerOf, interactive } from '../provider-message';

export interface CatalogBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  body: string;
  footer?: string;
  thumbnail_product_retailer_id?: string;
}

/** The catalog message (§1.6, interactive `catalog_message`): the client's linked catalog. */
export const catalogKind = defineKind({
  name: 'catalog',
  summary: 'Send the catalog message',
  schema: Joi.object<CatalogBody, true>({
    ...sendFields,
    body: text(1024).required(),
    footer,
    thumbnail_product_retailer_id: trimmed(256),
  }).required(),
  build: (b) =>
    interactive(b, b.reply_to, {
      type: 'catalog_message',
      body: { text: b.body },
      ...footerOf(b.footer),
      action: {
        name: 'catalog_message',
        ...(b.thumbnail_product_retailer_id ? { parameters: { thumbnail_product_retailer_id: b.thumbnail_product_retailer_id } } : {}),
      },
    }),
  examples: {
    valid: [
      {
        name: 'with thumbnail',
        body: { to, body: 'Browse our catalog', thumbnail_product_retailer_id: 'sku-1' },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'catalog_message',
            body: { text: 'Browse our catalog' },
            action: { name: 'catalog_message', parameters: { thumbnail_product_retailer_id: 'sku-1' } },
          },
        },
      },
      {
        name: 'without thumbnail, with a footer',
        body: { to, body: 'Browse', footer: 'f' },
        payload: {
          ...base,
          type: 'interactive',
          interactive: { type: 'catalog_message', body: { text: 'Browse' }, footer: { text: 'f' }, action: { name: 'catalog_message' } },
        },
      },
    ],
    invalid: [{ name: 'an unknown field', body: { to, body: 'Browse', colour: 'red' }, loc: ['body', 'colour'], type: 'extra_forbidden' }],
  },
  providerFileGaps: [
    {
      examples: /^without thumbnail/,
      instancePath: /^\/interactive\/action/,
      keyword: 'required',
      schemaPath: /^#\/oneOf\/\d+\/required$/,
      why: "provider-cloud-api.md 1.6: when the whole parameters object is omitted the first catalog item's image is used; the file has no branch for it",
    },
    {
      examples: /^without thumbnail/,
      instancePath: /^\/interactive\/action(\/name)?$/,
      keyword: 'enum',
      schemaPath: /^#\/oneOf\/\d+\/properties\/name\/enum$/,
      why: 'the same missing branch, reported through the other oneOf branches',
    },
    {
      examples: /^without thumbnail/,
      instancePath: /^\/interactive\/action$/,
      keyword: 'oneOf',
      schemaPath: /^#\/oneOf$/,
      why: 'the same missing branch',
    },
  ],
});
