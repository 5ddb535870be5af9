import Joi from 'joi';
import { EXAMPLE_ENVELOPE as base, EXAMPLE_TO as to } from '../examples';
import { httpUrl, sendFields, text } from '../fields';
import { defineKind } from '../kind';
import { defined, message, type Json } from '../provider-message';

/** The phone types the provider documents: its pages (CELL, MAIN, IPHONE, HOME, WORK), its own example (MOBILE). */
export const PHONE_TYPES = ['CELL', 'MAIN', 'IPHONE', 'HOME', 'WORK', 'MOBILE'] as const;
type PhoneType = (typeof PHONE_TYPES)[number];
/** Emails, URLs and addresses: home or work. */
type ContactType = 'HOME' | 'WORK';

/** A contact card as the provider documents it (supplement §1). */
export interface ContactCard {
  name: { formatted_name: string; first_name?: string; last_name?: string; middle_name?: string; suffix?: string; prefix?: string };
  phones?: Array<{ phone: string; type?: PhoneType; wa_id?: string }>;
  emails?: Array<{ email: string; type?: ContactType }>;
  urls?: Array<{ url: string; type?: ContactType }>;
  addresses?: Array<{ street?: string; city?: string; state?: string; zip?: string; country?: string; country_code?: string; type?: ContactType }>;
  org?: { company?: string; department?: string; title?: string };
  /** YYYY-MM-DD */
  birthday?: string;
}

export interface ContactsBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  contacts: ContactCard[];
}

/**
 * At most 5 cards: where the provider's pages (10) and its OpenAPI file (5) disagree the file wins (issue 19).
 * Phone types are the pages' (issue 25): the file's HOME/WORK enum refuses CELL, the commonest phone type, which the
 * provider takes; emails, URLs and addresses are HOME or WORK in both.
 */
const contactType = Joi.string().valid('HOME', 'WORK');
const phoneType = Joi.string().valid(...PHONE_TYPES);
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
    .items(Joi.object({ phone: Joi.string().max(64).required(), type: phoneType, wa_id: Joi.string().pattern(/^\d{5,20}$/, 'WhatsApp id') }))
    .max(20),
  emails: Joi.array()
    .items(
      Joi.object({
        email: Joi.string()
          .max(320)
          .email({ tlds: { allow: false } })
          .required(),
        type: contactType,
      }),
    )
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

/** A card as the provider takes it: empty lists and unset fields are left out. */
function card(c: ContactCard): Json {
  const listOf = <T>(items: T[] | undefined, map: (item: T) => Json) => (items?.length ? items.map(map) : undefined);
  return defined({
    name: defined({
      formatted_name: c.name.formatted_name,
      first_name: c.name.first_name,
      last_name: c.name.last_name,
      middle_name: c.name.middle_name,
      suffix: c.name.suffix,
      prefix: c.name.prefix,
    }),
    phones: listOf(c.phones, (p) => defined({ phone: p.phone, type: p.type, wa_id: p.wa_id })),
    emails: listOf(c.emails, (e) => defined({ email: e.email, type: e.type })),
    urls: listOf(c.urls, (u) => defined({ url: u.url, type: u.type })),
    addresses: listOf(c.addresses, (a) =>
      defined({ street: a.street, city: a.city, state: a.state, zip: a.zip, country: a.country, country_code: a.country_code, type: a.type }),
    ),
    org: c.org ? defined({ company: c.org.company, department: c.org.department, title: c.org.title }) : undefined,
    birthday: c.birthday,
  });
}

const cards = (n: number) => Array.from({ length: n }, (_, i) => ({ name: { formatted_name: `C${i}` } }));
const ana = { formatted_name: 'Ana' };

/** Contact cards (supplement §1), 1–5. */
export const contactsKind = defineKind({
  name: 'contacts',
  summary: 'Send contact cards (1–5)',
  schema: Joi.object<ContactsBody, true>({
    ...sendFields,
    contacts: Joi.array().items(contactCard).min(1).max(5).required(),
  }).required(),
  build: (b) => message(b, b.reply_to, 'contacts', b.contacts.map(card)),
  examples: {
    valid: [
      {
        name: 'a full card and a minimal one',
        body: {
          to,
          contacts: [
            {
              name: { formatted_name: 'Ana Silva', first_name: 'Ana', last_name: 'Silva' },
              phones: [{ phone: '+1 (650) 555-1234', type: 'WORK', wa_id: '16505551234' }],
              emails: [{ email: 'ana@shop.test', type: 'WORK' }],
              urls: [{ url: 'https://shop.test', type: 'WORK' }],
              addresses: [{ street: '1 Main St', city: 'Menlo Park', state: 'CA', zip: '94025', country: 'United States', country_code: 'us', type: 'WORK' }],
              org: { company: 'Shop', title: 'Support' },
              birthday: '1990-02-28',
            },
            { name: { formatted_name: 'Front desk' }, phones: [{ phone: '+16505550000' }] },
          ],
        },
        payload: {
          ...base,
          type: 'contacts',
          contacts: [
            {
              name: { formatted_name: 'Ana Silva', first_name: 'Ana', last_name: 'Silva' },
              phones: [{ phone: '+1 (650) 555-1234', type: 'WORK', wa_id: '16505551234' }],
              emails: [{ email: 'ana@shop.test', type: 'WORK' }],
              urls: [{ url: 'https://shop.test', type: 'WORK' }],
              addresses: [{ street: '1 Main St', city: 'Menlo Park', state: 'CA', zip: '94025', country: 'United States', country_code: 'us', type: 'WORK' }],
              org: { company: 'Shop', title: 'Support' },
              birthday: '1990-02-28',
            },
            { name: { formatted_name: 'Front desk' }, phones: [{ phone: '+16505550000' }] },
          ],
        },
      },
      {
        name: 'every name field, empty lists left out',
        body: {
          to,
          contacts: [
            {
              name: { formatted_name: 'Dr Ana M Silva Jr', first_name: 'Ana', last_name: 'Silva', middle_name: 'M', prefix: 'Dr', suffix: 'Jr' },
              phones: [],
              emails: [{ email: 'ana@shop.test', type: 'HOME' }],
              org: { company: 'Shop', department: 'Care', title: 'Support' },
            },
          ],
        },
        payload: {
          ...base,
          type: 'contacts',
          contacts: [
            {
              name: { formatted_name: 'Dr Ana M Silva Jr', first_name: 'Ana', last_name: 'Silva', middle_name: 'M', prefix: 'Dr', suffix: 'Jr' },
              emails: [{ email: 'ana@shop.test', type: 'HOME' }],
              org: { company: 'Shop', department: 'Care', title: 'Support' },
            },
          ],
        },
      },
      {
        name: 'every phone type the provider documents',
        body: {
          to,
          contacts: [
            {
              name: { formatted_name: 'Ana Silva' },
              phones: PHONE_TYPES.map((type, i) => ({ phone: `+1650555000${i}`, type })),
              urls: [{ url: 'https://ana.test', type: 'HOME' }],
              addresses: [{ city: 'Lisbon', type: 'HOME' }],
            },
          ],
        },
        payload: {
          ...base,
          type: 'contacts',
          contacts: [
            {
              name: { formatted_name: 'Ana Silva' },
              phones: PHONE_TYPES.map((type, i) => ({ phone: `+1650555000${i}`, type })),
              urls: [{ url: 'https://ana.test', type: 'HOME' }],
              addresses: [{ city: 'Lisbon', type: 'HOME' }],
            },
          ],
        },
      },
      {
        name: 'five minimal cards',
        body: { to, contacts: cards(5) },
        payload: { ...base, type: 'contacts', contacts: cards(5) },
      },
    ],
    invalid: [
      { name: '11 contacts', body: { to, contacts: cards(11) }, loc: ['body', 'contacts'], type: 'too_many_items' },
      {
        name: '6 contacts (the OpenAPI file allows 5 where the pages say 10: the file wins)',
        body: { to, contacts: cards(6) },
        loc: ['body', 'contacts'],
        type: 'too_many_items',
      },
      { name: 'no contacts', body: { to, contacts: [] }, loc: ['body', 'contacts'], type: 'too_short' },
      {
        name: 'a contact without formatted_name',
        body: { to, contacts: [{ name: { first_name: 'Ana' } }] },
        loc: ['body', 'contacts', '0', 'name', 'formatted_name'],
        type: 'missing',
      },
      {
        name: 'a phone type the provider does not document',
        body: { to, contacts: [{ name: ana, phones: [{ phone: '+16505551234', type: 'FAX' }] }] },
        loc: ['body', 'contacts', '0', 'phones', '0', 'type'],
        type: 'enum',
      },
      {
        name: 'a phone type on an email (emails are HOME or WORK)',
        body: { to, contacts: [{ name: ana, emails: [{ email: 'ana@shop.test', type: 'CELL' }] }] },
        loc: ['body', 'contacts', '0', 'emails', '0', 'type'],
        type: 'enum',
      },
      {
        name: 'a lower-case phone type',
        body: { to, contacts: [{ name: ana, phones: [{ phone: '+16505551234', type: 'cell' }] }] },
        loc: ['body', 'contacts', '0', 'phones', '0', 'type'],
        type: 'enum',
      },
      {
        name: 'a contact email that is not one',
        body: { to, contacts: [{ name: ana, emails: [{ email: 'ana@' }] }] },
        loc: ['body', 'contacts', '0', 'emails', '0', 'email'],
        type: 'value_error.email',
      },
      {
        name: 'a birthday that is no date',
        body: { to, contacts: [{ name: ana, birthday: '1990-02-30' }] },
        loc: ['body', 'contacts', '0', 'birthday'],
        type: 'date_invalid',
      },
      {
        name: 'an unknown contact field',
        body: { to, contacts: [{ name: ana, nickname: 'A' }] },
        loc: ['body', 'contacts', '0', 'nickname'],
        type: 'extra_forbidden',
      },
      {
        name: '21 phones on a card',
        body: { to, contacts: [{ name: ana, phones: Array.from({ length: 21 }, () => ({ phone: '+16505550000' })) }] },
        loc: ['body', 'contacts', '0', 'phones'],
        type: 'too_many_items',
      },
    ],
  },
  providerFileGaps: [
    {
      examples: /^every phone type/,
      instancePath: /^\/contacts\/0\/phones\/[0-5]\/type$/,
      keyword: 'enum',
      schemaPath: /\/type\/enum$/,
      why: "provider-supplement.md §1 and the provider's pages: phone types CELL, MAIN, IPHONE, HOME, WORK (its own example uses MOBILE); the file's enum has HOME and WORK only",
    },
  ],
});
