import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { footer, sendFields, text, totalAtMost, totalMessage, trimmed } from '../fields';
import { defineKind } from '../kind';
import { footerOf, interactive } from '../provider-message';

export interface ListBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  body: string;
  /** Defaults to `Options`. */
  button_text: string;
  /** A text header, given as a string or as `{type: "text", text}`. */
  header?: string | { type: 'text'; text: string };
  footer?: string;
  sections: Array<{ title?: string; rows: Array<{ id: string; title: string; description?: string }> }>;
}

const textHeader = Joi.alternatives().conditional(Joi.string(), {
  then: text(60),
  otherwise: Joi.object({ type: Joi.string().valid('text').required(), text: text(60).required() }),
});

const rows = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ id: `${prefix}${i}`, title: `${prefix.toUpperCase()}${i}` }));

/** A list message (§1.3): sections of rows, at most 10 rows in total. */
export const listKind = defineKind({
  name: 'list',
  summary: 'Send a list message (sections of rows)',
  schema: Joi.object<ListBody, true>({
    ...sendFields,
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
  }).required(),
  build: (b) => {
    const headerText = typeof b.header === 'string' ? b.header : b.header?.text;
    return interactive(b, b.reply_to, {
      type: 'list',
      ...(headerText === undefined ? {} : { header: { type: 'text', text: headerText } }),
      body: { text: b.body },
      ...footerOf(b.footer),
      action: {
        button: b.button_text,
        sections: b.sections.map((s) => ({
          ...(s.title === undefined ? {} : { title: s.title }),
          rows: s.rows.map((row) => ({ id: row.id, title: row.title, ...(row.description === undefined ? {} : { description: row.description }) })),
        })),
      },
    });
  },
  examples: {
    valid: [
      {
        name: 'two sections, the default button',
        body: {
          to,
          body: 'Choose shipping',
          sections: [
            { title: 'Fast', rows: [{ id: 'express', title: 'Express', description: '1-2 days' }] },
            { title: 'Cheap', rows: [{ id: 'ground', title: 'Ground' }] },
          ],
        },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'list',
            body: { text: 'Choose shipping' },
            action: {
              button: 'Options',
              sections: [
                { title: 'Fast', rows: [{ id: 'express', title: 'Express', description: '1-2 days' }] },
                { title: 'Cheap', rows: [{ id: 'ground', title: 'Ground' }] },
              ],
            },
          },
        },
      },
      {
        name: 'a text header as a string, footer, own button, one untitled section',
        body: { to, body: 'Choose', button_text: 'Sizes', header: 'H', footer: 'f', sections: [{ rows: [{ id: 'r1', title: 'R1', description: 'd' }] }] },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'list',
            header: { type: 'text', text: 'H' },
            body: { text: 'Choose' },
            footer: { text: 'f' },
            action: { button: 'Sizes', sections: [{ rows: [{ id: 'r1', title: 'R1', description: 'd' }] }] },
          },
        },
      },
      {
        name: 'a text header as an object',
        body: { to, body: 'Choose', header: { type: 'text', text: 'Menu' }, sections: [{ rows: [{ id: 'r1', title: 'R1' }] }] },
        payload: {
          ...base,
          type: 'interactive',
          interactive: {
            type: 'list',
            header: { type: 'text', text: 'Menu' },
            body: { text: 'Choose' },
            action: { button: 'Options', sections: [{ rows: [{ id: 'r1', title: 'R1' }] }] },
          },
        },
      },
    ],
    invalid: [
      {
        name: '11 list rows across sections',
        body: {
          to,
          body: 'Choose',
          sections: [
            { title: 'A', rows: rows('a', 6) },
            { title: 'B', rows: rows('b', 5) },
          ],
        },
        loc: ['body', 'sections'],
        type: 'too_many_items',
      },
      {
        name: 'a missing section title with two sections',
        body: { to, body: 'Choose', sections: [{ title: 'A', rows: [{ id: 'a', title: 'A' }] }, { rows: [{ id: 'b', title: 'B' }] }] },
        loc: ['body', 'sections', '1', 'title'],
        type: 'missing',
      },
      {
        name: 'a 25-character row title',
        body: { to, body: 'Choose', sections: [{ rows: [{ id: 'a', title: 'x'.repeat(25) }] }] },
        loc: ['body', 'sections', '0', 'rows', '0', 'title'],
        type: 'too_long',
      },
      {
        name: 'a 73-character row description',
        body: { to, body: 'Choose', sections: [{ rows: [{ id: 'a', title: 'A', description: 'x'.repeat(73) }] }] },
        loc: ['body', 'sections', '0', 'rows', '0', 'description'],
        type: 'too_long',
      },
      {
        name: 'a 21-character list button',
        body: { to, body: 'Choose', button_text: 'x'.repeat(21), sections: [{ rows: [{ id: 'a', title: 'A' }] }] },
        loc: ['body', 'button_text'],
        type: 'too_long',
      },
    ],
  },
});
