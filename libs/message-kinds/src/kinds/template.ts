import Joi from 'joi';
import { EXAMPLE_AUTH_TEMPLATE, EXAMPLE_ENVELOPE as base, EXAMPLE_MEDIA_ID, EXAMPLE_NAMED_TEMPLATE, EXAMPLE_TEMPLATE, EXAMPLE_TO as to } from '../examples';
import { sendFields } from '../fields';
import { defineKind } from '../kind';
import { message, type Json } from '../provider-message';

/** A template component as the provider takes it: passed through, checked against the local template copy. */
export interface TemplateComponent {
  type: 'header' | 'body' | 'button' | 'footer' | 'carousel' | 'limited_time_offer';
  sub_type?: string;
  /** The button's position, as a string (`"0"`). */
  index?: string;
  /** `parameter_name` names the variable a parameter fills in a NAMED template (provider-2026.md §6.1). */
  parameters?: Array<{ type: string; parameter_name?: string } & Json>;
  [field: string]: unknown;
}

export interface TemplateBody {
  client_id: string;
  to?: string;
  recipient?: string;
  reply_to?: string;
  template_name: string;
  lang: string;
  components?: TemplateComponent[];
  /**
   * For a MARKETING template sent through the Marketing Messages API (provider-2026.md §3.1): `CLOUD_API_FALLBACK`
   * (the provider's default: delivered through the Cloud API when the MM API cannot) or `STRICT` (fail instead).
   * Passed through when given; a send that goes to `/messages` has no such field.
   */
  product_policy?: 'CLOUD_API_FALLBACK' | 'STRICT';
}

const PARAMETER_TYPES = [
  'text',
  'currency',
  'date_time',
  'image',
  'video',
  'document',
  'location',
  'payload',
  'action',
  'coupon_code',
  'limited_time_offer',
  'product',
];

/*
 * The provider's other component and parameter fields (a carousel's cards, a currency's amount...) pass through
 * unchecked; their number is bounded here, their size and depth by the edge's body limits.
 */
/**
 * A component's parameters are all positional or all named (`parameter_name`): the provider refuses a mix
 * (provider-2026.md §6.1). Media parameters (a header's image) have no name either way.
 */
function namesNotMixed(c: TemplateComponent, helpers: Joi.CustomHelpers) {
  const params = c.parameters ?? [];
  const named = params.filter((p) => p.parameter_name !== undefined).length;
  if (!named) return c;
  const j = params.findIndex((p) => p.parameter_name === undefined && NAMEABLE.includes(p.type));
  if (j < 0) return c;
  return helpers.error('custom.parameter_names_mixed', { index: j }, { ...helpers.state, path: [...(helpers.state.path ?? []), 'parameters', j] });
}

/** The parameter types a NAMED template's variables take (text-based templates: provider OpenAPI `ParameterObject`). */
const NAMEABLE = ['text', 'currency', 'date_time'];

const templateComponent = Joi.object({
  type: Joi.string().valid('header', 'body', 'button', 'footer', 'carousel', 'limited_time_offer').required(),
  sub_type: Joi.when('type', { is: 'button', then: Joi.string().max(64).required(), otherwise: Joi.forbidden() }),
  // the provider wants the button's position as a string ("0")
  index: Joi.when('type', {
    is: 'button',
    then: Joi.string()
      .pattern(/^\d{1,2}$/, 'index')
      .required(),
    otherwise: Joi.forbidden(),
  }),
  parameters: Joi.array()
    .items(
      Joi.object({
        type: Joi.string()
          .valid(...PARAMETER_TYPES)
          .required(),
        parameter_name: Joi.string()
          .max(128)
          .pattern(/^[a-z_][a-z0-9_]*$/, 'lowercase variable name'),
      })
        .max(10)
        .unknown(true),
    )
    .max(100),
})
  .max(20)
  .unknown(true)
  .custom(namesNotMixed)
  .messages({ 'custom.parameter_names_mixed': '{{#label}} has no parameter_name: a component gives all its parameters by name or none' });

const valid = { to, template_name: 'hello', lang: 'en_US' };

/** An approved template (§1.9): name, language and the components' parameters. */
export const templateKind = defineKind({
  name: 'template',
  summary: 'Send an approved template',
  schema: Joi.object<TemplateBody, true>({
    ...sendFields,
    template_name: Joi.string()
      .pattern(/^[a-z0-9_]{1,512}$/, 'template name')
      .required(),
    lang: Joi.string()
      .pattern(/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})?$/, 'language code')
      .required(),
    components: Joi.array().items(templateComponent).max(20),
    product_policy: Joi.string().valid('CLOUD_API_FALLBACK', 'STRICT'),
  }).required(),
  template: (b) => ({ name: b.template_name, language: b.lang, components: b.components }),
  build: (b) =>
    message(b, b.reply_to, 'template', {
      name: b.template_name,
      language: { code: b.lang },
      ...(b.components === undefined ? {} : { components: b.components }),
    }),
  examples: {
    valid: [
      {
        name: 'a body parameter',
        body: {
          to,
          template_name: EXAMPLE_TEMPLATE.name,
          lang: EXAMPLE_TEMPLATE.language,
          components: [{ type: 'body', parameters: [{ type: 'text', text: 'Jessica' }] }],
        },
        payload: {
          ...base,
          type: 'template',
          template: {
            name: 'order_confirmation',
            language: { code: 'en_US' },
            components: [{ type: 'body', parameters: [{ type: 'text', text: 'Jessica' }] }],
          },
        },
      },
      {
        name: 'a body parameter and a quick reply payload',
        body: {
          to,
          template_name: EXAMPLE_TEMPLATE.name,
          lang: EXAMPLE_TEMPLATE.language,
          components: [
            { type: 'body', parameters: [{ type: 'text', text: 'J' }] },
            { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'X' }] },
          ],
        },
        payload: {
          ...base,
          type: 'template',
          template: {
            name: 'order_confirmation',
            language: { code: 'en_US' },
            components: [
              { type: 'body', parameters: [{ type: 'text', text: 'J' }] },
              { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'X' }] },
            ],
          },
        },
      },
      {
        name: "named parameters in any order (the provider's welcome_discount_template send)",
        body: {
          to,
          template_name: EXAMPLE_NAMED_TEMPLATE.name,
          lang: EXAMPLE_NAMED_TEMPLATE.language,
          components: [
            { type: 'header', parameters: [{ type: 'image', image: { id: EXAMPLE_MEDIA_ID } }] },
            {
              type: 'body',
              parameters: [
                { type: 'text', parameter_name: 'discount_code', text: 'WELCOME25' },
                { type: 'text', parameter_name: 'first_name', text: 'Jessica' },
                { type: 'text', parameter_name: 'discount_amount', text: '25%' },
              ],
            },
          ],
        },
        payload: {
          ...base,
          type: 'template',
          template: {
            name: 'welcome_discount_template',
            language: { code: 'en_US' },
            components: [
              { type: 'header', parameters: [{ type: 'image', image: { id: EXAMPLE_MEDIA_ID } }] },
              {
                type: 'body',
                parameters: [
                  { type: 'text', parameter_name: 'discount_code', text: 'WELCOME25' },
                  { type: 'text', parameter_name: 'first_name', text: 'Jessica' },
                  { type: 'text', parameter_name: 'discount_amount', text: '25%' },
                ],
              },
            ],
          },
        },
      },
      {
        name: 'an authentication code: the body and the OTP button (a url button) carry it (provider-2026.md §6.2)',
        body: {
          to,
          template_name: EXAMPLE_AUTH_TEMPLATE.name,
          lang: EXAMPLE_AUTH_TEMPLATE.language,
          components: [
            { type: 'body', parameters: [{ type: 'text', text: '123456' }] },
            { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '123456' }] },
          ],
        },
        payload: {
          ...base,
          type: 'template',
          template: {
            name: 'authentication_code_copy_code_button',
            language: { code: 'en_US' },
            components: [
              { type: 'body', parameters: [{ type: 'text', text: '123456' }] },
              { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '123456' }] },
            ],
          },
        },
      },
    ],
    invalid: [
      {
        name: 'positional and named parameters mixed in one component',
        body: {
          ...valid,
          components: [
            {
              type: 'body',
              parameters: [
                { type: 'text', parameter_name: 'first_name', text: 'Jo' },
                { type: 'text', text: 'SKB-1' },
              ],
            },
          ],
        },
        loc: ['body', 'components', '0', 'parameters', '1'],
        type: 'parameter_names_mixed',
      },
      {
        name: 'a parameter_name that is no variable name',
        body: { ...valid, components: [{ type: 'body', parameters: [{ type: 'text', parameter_name: 'First Name', text: 'Jo' }] }] },
        loc: ['body', 'components', '0', 'parameters', '0', 'parameter_name'],
        type: 'string_pattern_mismatch',
      },
      {
        name: 'a template component without type',
        body: { ...valid, components: [{ parameters: [] }] },
        loc: ['body', 'components', '0', 'type'],
        type: 'missing',
      },
      {
        name: 'a button component without sub_type',
        body: { ...valid, components: [{ type: 'button', index: '0' }] },
        loc: ['body', 'components', '0', 'sub_type'],
        type: 'missing',
      },
      { name: 'an unknown product_policy', body: { ...valid, product_policy: 'LOOSE' }, loc: ['body', 'product_policy'], type: 'enum' },
      { name: 'a template name with capitals', body: { ...valid, template_name: 'Hello' }, loc: ['body', 'template_name'], type: 'string_pattern_mismatch' },
      {
        name: 'a parameter with 11 fields',
        body: {
          ...valid,
          components: [{ type: 'body', parameters: [{ type: 'text', ...Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${i}`, i])) }] }],
        },
        loc: ['body', 'components', '0', 'parameters', '0'],
        type: 'too_many_properties',
      },
    ],
  },
  providerFileGaps: [
    {
      instancePath: /^\/template\/language$/,
      keyword: 'required',
      schemaPath: /LanguageObject\/required$/,
      why: 'provider-cloud-api.md 1.9: language.policy "deterministic" is optional; the file lists it as required, the docs omit it',
    },
    {
      instancePath: /^\/template\/components\/\d+\/index$/,
      keyword: 'pattern',
      schemaPath: /TemplateComponent\/properties\/index\/pattern$/,
      why: 'the file\'s pattern "^[2-6, 11-14]$" is a malformed character class that refuses "0", the index of a first button in every docs example',
    },
  ],
});
