import Joi from 'joi';
import { clientId } from './common';

/** Template categories and statuses of the provider (supplement §4, reference §7.7). */
export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
export const TEMPLATE_STATUSES = ['APPROVED', 'PENDING', 'REJECTED', 'PAUSED', 'DISABLED', 'IN_APPEAL', 'PENDING_DELETION', 'DELETED', 'LIMIT_EXCEEDED', 'ARCHIVED', 'FLAGGED', 'LOCKED', 'REINSTATED'] as const;

const templateId = Joi.string().pattern(/^\d{1,64}$/, 'template id');
const name = Joi.string().max(512).pattern(/^[a-z0-9_]+$/, 'lowercase letters, digits and underscores');
const language = Joi.string().pattern(/^[a-z]{2,3}(_[A-Z]{2,4})?$/, 'language code');

const variables = (text: unknown) => (typeof text === 'string' ? new Set([...text.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)].map((m) => m[1])).size : 0);

const messages = {
  'custom.example_missing': '{{#label}} uses {{#count}} variable(s): example.{{#field}} must give a value for each',
  'custom.too_many_variables': '{{#label}} may use at most {{#limit}} variable(s)',
  'custom.component_count': 'components must hold {{#expected}} {{#type}} component',
  'custom.too_many_buttons': 'at most {{#limit}} {{#type}} buttons',
};

/** Variables in `text` need examples in `example[key]` (one row with a value per variable for the body). */
function examplesFor(key: 'body_text' | 'header_text', maxVariables?: number) {
  return (c: Record<string, unknown>, helpers: Joi.CustomHelpers) => {
    const n = variables(c.text);
    if (maxVariables !== undefined && n > maxVariables) return helpers.error('custom.too_many_variables', { limit: maxVariables });
    if (!n) return c;
    const ex = (c.example as Record<string, unknown> | undefined)?.[key];
    const row = key === 'body_text' && Array.isArray(ex) ? ex[0] : ex;
    if (!Array.isArray(row) || row.length < n) return helpers.error('custom.example_missing', { count: n, field: key });
    return c;
  };
}

const text = (max: number) => Joi.string().min(1).max(max);

const header = Joi.object({
  type: Joi.string().valid('HEADER').required(),
  format: Joi.string().valid('TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION').required(),
  text: text(60).when('format', { is: 'TEXT', then: Joi.required(), otherwise: Joi.forbidden() }),
  example: Joi.object({ header_text: Joi.array().items(Joi.string()).max(1), header_handle: Joi.array().items(Joi.string()).min(1) }).when('format', {
    is: Joi.valid('IMAGE', 'VIDEO', 'DOCUMENT'),
    then: Joi.object({ header_handle: Joi.required() }).required(),
  }),
})
  .custom(examplesFor('header_text', 1))
  .messages(messages);

const body = Joi.object({
  type: Joi.string().valid('BODY').required(),
  text: text(1024).required(),
  example: Joi.object({ body_text: Joi.array().items(Joi.array().items(Joi.string())).min(1), body_text_named_params: Joi.array() }),
})
  .custom(examplesFor('body_text'))
  .messages(messages);

const footer = Joi.object({
  type: Joi.string().valid('FOOTER').required(),
  text: text(60).pattern(/^[^{}]*$/, 'text without variables').required(),
});

const button = Joi.object({
  type: Joi.string().valid('QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE', 'OTP', 'FLOW').required(),
  text: text(25).when('type', { is: Joi.valid('OTP', 'COPY_CODE'), then: Joi.optional(), otherwise: Joi.required() }),
  url: Joi.string()
    .max(2000)
    .pattern(/^https?:\/\/[^{}]*(\{\{\s*[A-Za-z0-9_]+\s*\}\})?$/, 'URL ending in at most one variable')
    .when('type', { is: 'URL', then: Joi.required(), otherwise: Joi.forbidden() }),
  example: Joi.array().items(Joi.string()).min(1).when('url', { is: Joi.string().pattern(/\{\{/).required(), then: Joi.required() }),
  phone_number: Joi.string().pattern(/^\+?\d{7,20}$/, 'phone number').when('type', { is: 'PHONE_NUMBER', then: Joi.required(), otherwise: Joi.forbidden() }),
}).unknown(true);

function buttonLimits(c: { buttons: Array<{ type: string }> }, helpers: Joi.CustomHelpers) {
  const count = (t: string) => c.buttons.filter((b) => b.type === t).length;
  if (count('URL') > 2) return helpers.error('custom.too_many_buttons', { limit: 2, type: 'URL' });
  if (count('PHONE_NUMBER') > 1) return helpers.error('custom.too_many_buttons', { limit: 1, type: 'PHONE_NUMBER' });
  return c;
}

const buttons = Joi.object({ type: Joi.string().valid('BUTTONS').required(), buttons: Joi.array().items(button).min(1).max(10).required() })
  .custom(buttonLimits)
  .messages(messages);

const component = Joi.alternatives().conditional('.type', {
  switch: [
    { is: 'HEADER', then: header },
    { is: 'BODY', then: body },
    { is: 'FOOTER', then: footer },
    { is: 'BUTTONS', then: buttons },
  ],
  otherwise: Joi.object({ type: Joi.string().valid('HEADER', 'BODY', 'FOOTER', 'BUTTONS').required() }).unknown(true),
});

/** One BODY, at most one HEADER, FOOTER and BUTTONS. */
function componentCounts(list: Array<{ type: string }>, helpers: Joi.CustomHelpers) {
  const count = (t: string) => list.filter((c) => c.type === t).length;
  if (count('BODY') !== 1) return helpers.error('custom.component_count', { expected: 'exactly one', type: 'BODY' });
  for (const t of ['HEADER', 'FOOTER', 'BUTTONS']) if (count(t) > 1) return helpers.error('custom.component_count', { expected: 'at most one', type: t });
  return list;
}

export const createTemplateBody = Joi.object({
  client_id: clientId,
  name: name.required(),
  language: language.required(),
  category: Joi.string().valid(...TEMPLATE_CATEGORIES).required(),
  components: Joi.array().items(component).min(1).max(10).required().custom(componentCounts).messages(messages),
}).required();

export const listTemplatesQuery = Joi.object({
  client_id: clientId,
  status: Joi.string().valid(...TEMPLATE_STATUSES),
  name: Joi.string().max(512),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(2048),
});

export const templatePath = Joi.object({ template_id: templateId.required() });
export const templateClientQuery = Joi.object({ client_id: clientId });
export const syncTemplatesBody = Joi.object({ client_id: clientId }).required();
export const deleteTemplatesQuery = Joi.object({ client_id: clientId, name: name, template_id: templateId }).or('name', 'template_id');
