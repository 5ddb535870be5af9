import Joi from 'joi';
import { clientId } from './common';
import { TEMPLATE_RULE_MESSAGES, templateRules } from './template-rules';

/** Template categories and statuses of the provider (supplement §4, reference §7.7). */
export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
export const TEMPLATE_STATUSES = [
  'APPROVED',
  'PENDING',
  'REJECTED',
  'PAUSED',
  'DISABLED',
  'IN_APPEAL',
  'PENDING_DELETION',
  'DELETED',
  'LIMIT_EXCEEDED',
  'ARCHIVED',
  'FLAGGED',
  'LOCKED',
  'REINSTATED',
] as const;
/** provider-2026.md §6.1: `POSITIONAL` (the default) or `NAMED`. */
export const PARAMETER_FORMATS = ['POSITIONAL', 'NAMED'] as const;
/** Most variables a template text may have (the provider's own bound depends on the text's length: 2388293). */
const MAX_VARIABLES = 100;

const templateId = Joi.string().pattern(/^\d{1,64}$/, 'template id');
const name = Joi.string()
  .max(512)
  .pattern(/^[a-z0-9_]+$/, 'lowercase letters, digits and underscores');
const language = Joi.string().pattern(/^[a-z]{2,3}(_[A-Z]{2,4})?$/, 'language code');

/*
 * The provider's pages write enum values in upper or lower case (`"category": "marketing"`, `"type": "header"`,
 * `"parameter_format": "named"`) and the provider takes both: so does the gateway (the API description lists
 * both), and it passes them on as the tenant wrote them (the body is validated without conversion).
 */
const oneOf = (...values: string[]) => Joi.string().valid(...values, ...values.map((v) => v.toLowerCase()));

const text = (max: number) => Joi.string().min(1).max(max);

/** A named variable's example: `{param_name, example}` (provider-2026.md §6.1). */
const namedExample = Joi.object({
  param_name: Joi.string().max(128).required(),
  example: text(1024).required(),
});

const header = Joi.object({
  type: oneOf('HEADER').required(),
  format: oneOf('TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION').required(),
  text: text(60).when('format', { is: oneOf('TEXT'), then: Joi.required(), otherwise: Joi.forbidden() }),
  example: Joi.object({
    header_text: Joi.array().items(text(60)).max(1),
    header_text_named_params: Joi.array().items(namedExample).max(1),
    header_handle: Joi.array().items(Joi.string().max(4096)).min(1).max(10),
  }).when('format', {
    is: oneOf('IMAGE', 'VIDEO', 'DOCUMENT'),
    then: Joi.object({ header_handle: Joi.required() }).required(),
  }),
});

const body = Joi.object({
  type: oneOf('BODY').required(),
  // required but in AUTHENTICATION templates, whose body is the provider's fixed text (template-rules.ts)
  text: text(1024),
  // AUTHENTICATION only: "For your security, do not share this code."
  add_security_recommendation: Joi.boolean(),
  example: Joi.object({
    body_text: Joi.array()
      .items(Joi.array().items(text(1024)).max(MAX_VARIABLES))
      .min(1)
      .max(1),
    body_text_named_params: Joi.array().items(namedExample).max(MAX_VARIABLES),
  }),
});

const footer = Joi.object({
  type: oneOf('FOOTER').required(),
  // required but in AUTHENTICATION templates, whose footer is the code's expiry line (template-rules.ts)
  text: text(60).pattern(/^[^{}]*$/, 'text without variables'),
  // AUTHENTICATION only: "This code expires in N minutes." (1-90)
  code_expiration_minutes: Joi.number().integer().min(1).max(90),
});

/** An Android app allowed to receive the code of a one-tap or zero-tap button (provider-2026.md §6.2). */
const supportedApp = Joi.object({
  package_name: Joi.string().min(1).max(224).required(),
  signature_hash: Joi.string().length(11).required(),
});

/** A `when` condition: only a present otp_type matches (an optional `is` would match a missing one). */
const ONE_OR_ZERO_TAP = oneOf('ONE_TAP', 'ZERO_TAP').required();

/**
 * One button. OTP buttons (authentication templates only) by `otp_type`: `COPY_CODE` (`text` ≤ 25), `ONE_TAP`
 * (+ `autofill_text` ≤ 25 and `supported_apps`, 1-5; or the older `package_name` + `signature_hash` on the button),
 * `ZERO_TAP` (as ONE_TAP + `zero_tap_terms_accepted: true`). The provider's other buttons (FLOW, MPM, CATALOG...)
 * carry fields of their own, passed through.
 */
const button = Joi.object({
  type: oneOf('QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE', 'OTP', 'FLOW', 'MPM', 'CATALOG', 'VOICE_CALL', 'REQUEST_CONTACT_INFO').required(),
  text: text(25).when('type', { is: oneOf('OTP', 'COPY_CODE'), then: Joi.optional(), otherwise: Joi.required() }),
  url: Joi.string()
    .max(2000)
    .pattern(/^https?:\/\/[^{}]*(\{\{\s*[A-Za-z0-9_]+\s*\}\})?$/, 'URL ending in at most one variable')
    .when('type', { is: oneOf('URL'), then: Joi.required(), otherwise: Joi.forbidden() }),
  example: Joi.alternatives()
    .try(Joi.array().items(Joi.string().max(2000)).min(1).max(1), Joi.string().max(2000))
    .when('url', { is: Joi.string().pattern(/\{\{/).required(), then: Joi.required() }),
  phone_number: Joi.string()
    .pattern(/^\+?\d{7,20}$/, 'phone number')
    .when('type', { is: oneOf('PHONE_NUMBER'), then: Joi.required(), otherwise: Joi.forbidden() }),
  otp_type: oneOf('COPY_CODE', 'ONE_TAP', 'ZERO_TAP').when('type', { is: oneOf('OTP'), then: Joi.required(), otherwise: Joi.forbidden() }),
  autofill_text: text(25).when('otp_type', { is: ONE_OR_ZERO_TAP, otherwise: Joi.forbidden() }),
  supported_apps: Joi.array()
    .items(supportedApp)
    .min(1)
    .max(5)
    .when('otp_type', {
      is: ONE_OR_ZERO_TAP,
      then: Joi.when('package_name', { is: Joi.exist(), then: Joi.forbidden(), otherwise: Joi.required() }),
      otherwise: Joi.forbidden(),
    }),
  package_name: Joi.string().min(1).max(224).when('otp_type', { is: ONE_OR_ZERO_TAP, otherwise: Joi.forbidden() }),
  // the older form's hash: 11 characters, URL-encoded in the provider's own example ("K8a%2FAINcGX7")
  signature_hash: Joi.string()
    .max(64)
    .custom((v: string, helpers) => (decoded(v).length === 11 ? v : helpers.error('custom.signature_hash')))
    .when('otp_type', { is: ONE_OR_ZERO_TAP, otherwise: Joi.forbidden() }),
  zero_tap_terms_accepted: Joi.boolean().when('otp_type', { is: oneOf('ZERO_TAP').required(), then: Joi.valid(true).required(), otherwise: Joi.forbidden() }),
})
  .and('package_name', 'signature_hash')
  .unknown(true)
  .max(16)
  .messages({ 'custom.signature_hash': '{{#label}} must be the 11-character app signing key hash' });

function decoded(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

const messages = {
  'custom.too_many_buttons': 'at most {{#limit}} {{#type}} buttons',
  'custom.component_count': 'components must hold {{#expected}} {{#type}} component',
};

function buttonLimits(c: { buttons: Array<{ type: string }> }, helpers: Joi.CustomHelpers) {
  const count = (t: string) => c.buttons.filter((b) => b.type.toUpperCase() === t).length;
  if (count('URL') > 2) return helpers.error('custom.too_many_buttons', { limit: 2, type: 'URL' });
  if (count('PHONE_NUMBER') > 1) return helpers.error('custom.too_many_buttons', { limit: 1, type: 'PHONE_NUMBER' });
  return c;
}

const buttons = Joi.object({ type: oneOf('BUTTONS').required(), buttons: Joi.array().items(button).min(1).max(10).required() })
  .custom(buttonLimits)
  .messages(messages);

/** provider-2026.md §6.4, §7.4: a MARKETING or UTILITY template asking for call permission. */
const callPermissionRequest = Joi.object({ type: oneOf('CALL_PERMISSION_REQUEST').required() });

const COMPONENT_TYPES = ['HEADER', 'BODY', 'FOOTER', 'BUTTONS', 'CALL_PERMISSION_REQUEST'];

const component = Joi.alternatives().conditional('.type', {
  switch: [
    { is: oneOf('HEADER'), then: header },
    { is: oneOf('BODY'), then: body },
    { is: oneOf('FOOTER'), then: footer },
    { is: oneOf('BUTTONS'), then: buttons },
    { is: oneOf('CALL_PERMISSION_REQUEST'), then: callPermissionRequest },
  ],
  otherwise: Joi.object({ type: oneOf(...COMPONENT_TYPES).required() })
    .unknown(true)
    .max(20),
});

/** One BODY, at most one of each other component. */
function componentCounts(list: Array<{ type: string }>, helpers: Joi.CustomHelpers) {
  const count = (t: string) => list.filter((c) => c.type.toUpperCase() === t).length;
  if (count('BODY') !== 1) return helpers.error('custom.component_count', { expected: 'exactly one', type: 'BODY' });
  for (const t of COMPONENT_TYPES) if (t !== 'BODY' && count(t) > 1) return helpers.error('custom.component_count', { expected: 'at most one', type: t });
  return list;
}

/**
 * `POST /api/templates`: the provider's create body (supplement §4, provider-2026.md §6) plus `client_id`,
 * passed on unchanged. The rules that tie fields together (variables and `parameter_format`, what an
 * AUTHENTICATION template may hold) are template-rules.ts: what the provider refuses is a 422 naming the field.
 */
export const createTemplateBody = Joi.object({
  client_id: clientId,
  name: name.required(),
  language: language.required(),
  category: oneOf(...TEMPLATE_CATEGORIES).required(),
  parameter_format: oneOf(...PARAMETER_FORMATS),
  // how long the provider tries to deliver a send (-1: 30 days); its range by category in template-rules.ts
  message_send_ttl_seconds: Joi.number().integer().min(-1).max(2_592_000).invalid(0),
  components: Joi.array().items(component).min(1).max(10).required().custom(componentCounts).messages(messages),
})
  .custom(templateRules)
  .messages(TEMPLATE_RULE_MESSAGES)
  .required();

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
