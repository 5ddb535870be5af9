import Joi from 'joi';
import { AppError } from '@gateway/errors';
import { EXAMPLE_CLIENT, EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { footer, sendFields, text, totalAtMost, totalMessage, trimmed } from '../fields';
import { defineKind } from '../kind';
import { footerOf, interactive } from '../provider-message';

export interface ProductsBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  /** Becomes the required text header. */
  title: string;
  body: string;
  footer?: string;
  /** Defaults to the client's linked catalog. */
  catalog_id?: string;
  sections: Array<{ title?: string; skus: string[] }>;
}

const skus = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

/** A multi-product message (§1.3, `product_list`): at most 30 products in total, from the client's catalog by default. */
export const productsKind = defineKind({
  name: 'products',
  summary: 'Send a multi-product message from a catalog',
  schema: Joi.object<ProductsBody, true>({
    ...sendFields,
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
  }).required(),
  build: (b, client) => {
    const catalogId = b.catalog_id || client.catalogId;
    if (!catalogId) {
      throw AppError.validation([
        { loc: ['body', 'catalog_id'], msg: 'catalog_id is required: this client has no linked catalog', type: 'missing', input: null, ctx: {} },
      ]);
    }
    return interactive(b, b.reply_to, {
      type: 'product_list',
      header: { type: 'text', text: b.title },
      body: { text: b.body },
      ...footerOf(b.footer),
      action: {
        catalog_id: catalogId,
        sections: b.sections.map((s) => ({
          ...(s.title === undefined ? {} : { title: s.title }),
          product_items: s.skus.map((sku) => ({ product_retailer_id: sku })),
        })),
      },
    });
  },
  examples: {
    valid: [
      {
        name: "the client's catalog, two sections",
        body: {
          to,
          title: 'Our picks',
          body: 'Tap to browse',
          sections: [
            { title: 'Plants', skus: ['sku-1', 'sku-2'] },
            { title: 'Pots', skus: ['sku-9'] },
          ],
        },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'product_list',
            header: { type: 'text', text: 'Our picks' },
            body: { text: 'Tap to browse' },
            action: {
              catalog_id: EXAMPLE_CLIENT.catalogId,
              sections: [
                { title: 'Plants', product_items: [{ product_retailer_id: 'sku-1' }, { product_retailer_id: 'sku-2' }] },
                { title: 'Pots', product_items: [{ product_retailer_id: 'sku-9' }] },
              ],
            },
          },
        },
      },
      {
        name: 'the catalog named, a footer, one untitled section',
        body: { to, title: 'Picks', body: 'Browse', footer: 'f', catalog_id: EXAMPLE_CLIENT.catalogId, sections: [{ skus: ['sku-3'] }] },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'product_list',
            header: { type: 'text', text: 'Picks' },
            body: { text: 'Browse' },
            footer: { text: 'f' },
            action: { catalog_id: EXAMPLE_CLIENT.catalogId, sections: [{ product_items: [{ product_retailer_id: 'sku-3' }] }] },
          },
        },
      },
    ],
    invalid: [
      {
        name: '31 SKUs across sections',
        body: {
          to,
          title: 'Picks',
          body: 'Browse',
          sections: [
            { title: 'A', skus: skus('a', 16) },
            { title: 'B', skus: skus('b', 15) },
          ],
        },
        loc: ['body', 'sections'],
        type: 'too_many_items',
      },
      {
        name: 'a product message without title',
        body: { to, body: 'Browse', sections: [{ title: 'A', skus: ['a'] }] },
        loc: ['body', 'title'],
        type: 'missing',
      },
    ],
  },
});
