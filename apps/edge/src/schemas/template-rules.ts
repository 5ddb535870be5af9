import type Joi from 'joi';

/*
 * The rules of a new template that tie its fields together (provider-2026.md §6.1, §6.2; supplement §4), checked
 * after its shape (templates.ts): the provider refuses a template that breaks one, so the gateway refuses it
 * first, with a 422 naming the field, and no provider call.
 *
 * - Variables: `POSITIONAL` (the default) texts use `{{1}}`…`{{n}}`, every number from 1 to n; `NAMED` ones
 *   lowercase names (`{{first_name}}`), which need `parameter_format: "NAMED"`. Each variable needs an example:
 *   `example.body_text` (one row, a value per variable) or `body_text_named_params` (one `{param_name, example}`
 *   per name), `header_text` / `header_text_named_params` for the header's one variable.
 * - AUTHENTICATION templates: the body is the provider's fixed text ("{{1}} is your verification code.", with
 *   `add_security_recommendation`), the footer its code expiry line (`code_expiration_minutes`), and the one
 *   button an OTP button; no header, no texts of their own. Other categories use neither field nor OTP buttons.
 * - `message_send_ttl_seconds`: 30-900 s for AUTHENTICATION, 30-43200 s for UTILITY, or -1 (30 days).
 */

type Json = Record<string, unknown>;

interface Problem {
  /** Below the body: `['components', 1, 'text']`. */
  path: Array<string | number>;
  /** The issue's stable word (`type` of the 422's item). */
  type: string;
  message: string;
}

const VARIABLE = /\{\{([^{}]*)\}\}/g;
const POSITIONAL = /^\d+$/;
const NAMED = /^[a-z_][a-z0-9_]*$/;

const upper = (v: unknown) => (typeof v === 'string' ? v.toUpperCase() : '');

/** The distinct variables of a text, in order of first use (`1`, `first_name`...), as written between the braces. */
export function variablesOf(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  return [...new Set([...text.matchAll(VARIABLE)].map((m) => m[1].trim()))];
}

/** Joi's custom rule over the whole body: the first problem as a 422 at its field. */
export function templateRules(body: Json, helpers: Joi.CustomHelpers): Json | Joi.ErrorReport {
  const problem = firstProblem(body);
  if (!problem) return body;
  return helpers.error(`custom.${problem.type}`, { reason: problem.message }, { ...helpers.state, path: [...(helpers.state.path ?? []), ...problem.path] });
}

/** The messages of templateRules' errors: each carries its own text. */
export const TEMPLATE_RULE_MESSAGES: Record<string, string> = Object.fromEntries(
  [
    'variables_not_sequential',
    'variable_name_invalid',
    'named_variables_need_parameter_format',
    'positional_variable_in_named_template',
    'example_missing',
    'named_example_mismatch',
    'too_many_variables',
    'missing',
    'authentication_body_text',
    'authentication_only',
    'authentication_component',
    'otp_button_missing',
    'otp_button_not_allowed',
    'ttl_out_of_range',
  ].map((t) => [`custom.${t}`, '{{#reason}}']),
);

function firstProblem(b: Json): Problem | undefined {
  const components = (Array.isArray(b.components) ? b.components : []) as Json[];
  const named = upper(b.parameter_format) === 'NAMED';
  const auth = upper(b.category) === 'AUTHENTICATION';
  for (const [i, c] of components.entries()) {
    const type = upper(c.type);
    const problem = auth ? authenticationComponent(c, type, i) : ordinaryComponent(c, type, i, named);
    if (problem) return problem;
  }
  if (auth) {
    const otp = components.some((c) => upper(c.type) === 'BUTTONS' && Array.isArray(c.buttons) && c.buttons.some((x) => upper((x as Json).type) === 'OTP'));
    if (!otp)
      return {
        path: ['components'],
        type: 'otp_button_missing',
        message: 'an AUTHENTICATION template needs a BUTTONS component with one OTP button (COPY_CODE, ONE_TAP or ZERO_TAP)',
      };
  }
  return ttlProblem(b.message_send_ttl_seconds, upper(b.category));
}

/** A component of a MARKETING or UTILITY template: texts with variables and their examples, no authentication fields. */
function ordinaryComponent(c: Json, type: string, i: number, named: boolean): Problem | undefined {
  const at = (...rest: Array<string | number>) => ['components', i, ...rest];
  if (type === 'BODY' || type === 'FOOTER') {
    if (c.text === undefined) return { path: at('text'), type: 'missing', message: `components[${i}].text is required` };
    for (const field of ['add_security_recommendation', 'code_expiration_minutes']) {
      if (c[field] !== undefined)
        return { path: at(field), type: 'authentication_only', message: `components[${i}].${field} belongs to AUTHENTICATION templates only` };
    }
  }
  if (type === 'BUTTONS' && Array.isArray(c.buttons)) {
    const j = c.buttons.findIndex((x) => upper((x as Json).type) === 'OTP');
    if (j >= 0)
      return {
        path: at('buttons', j, 'type'),
        type: 'otp_button_not_allowed',
        message: 'OTP buttons belong to AUTHENTICATION templates (a coupon code is a COPY_CODE button)',
      };
  }
  if (type === 'BODY') return textVariables(c, i, named, 'body');
  if (type === 'HEADER' && upper(c.format) === 'TEXT') return textVariables(c, i, named, 'header');
  return undefined;
}

/** A text's variables: all positional (1..n) or all named (with parameter_format NAMED), each with its example. */
function textVariables(c: Json, i: number, named: boolean, part: 'body' | 'header'): Problem | undefined {
  const at = (...rest: Array<string | number>) => ['components', i, ...rest];
  const label = `components[${i}].text`;
  const vars = variablesOf(c.text);
  if (!vars.length) return undefined;
  const bad = vars.find((v) => !POSITIONAL.test(v) && !NAMED.test(v));
  if (bad !== undefined)
    return {
      path: at('text'),
      type: 'variable_name_invalid',
      message: `${label} has the variable {{${bad}}}: variables are numbers ({{1}}) or lowercase names ({{first_name}})`,
    };
  if (part === 'header' && vars.length > 1) return { path: at('text'), type: 'too_many_variables', message: `${label} may use at most 1 variable` };
  const example = (c.example ?? {}) as Json;
  if (!named) {
    const name = vars.find((v) => !POSITIONAL.test(v));
    if (name !== undefined)
      return {
        path: ['parameter_format'],
        type: 'named_variables_need_parameter_format',
        message: `parameter_format must be NAMED: ${label} uses the named variable {{${name}}} (positional templates number their variables {{1}}, {{2}}…)`,
      };
    const numbers = vars.map(Number).sort((a, b) => a - b);
    if (numbers.some((n, k) => n !== k + 1))
      return {
        path: at('text'),
        type: 'variables_not_sequential',
        message: `${label} must number its variables {{1}} to {{${numbers.length}}} without gaps (it uses ${numbers.map((n) => `{{${n}}}`).join(', ')})`,
      };
    const key = part === 'body' ? 'body_text' : 'header_text';
    const given = example[key];
    const row = part === 'body' && Array.isArray(given) ? given[0] : given;
    if (!Array.isArray(row) || row.length !== vars.length)
      return {
        path: ['components', i],
        type: 'example_missing',
        message: `components[${i}] uses ${vars.length} variable(s): example.${key} must give a value for each`,
      };
    return undefined;
  }
  const number = vars.find((v) => POSITIONAL.test(v));
  if (number !== undefined)
    return {
      path: at('text'),
      type: 'positional_variable_in_named_template',
      message: `${label} uses {{${number}}}: a NAMED template names its variables ({{first_name}})`,
    };
  const key = part === 'body' ? 'body_text_named_params' : 'header_text_named_params';
  const params = Array.isArray(example[key]) ? (example[key] as Json[]) : [];
  const names = params.map((p) => p.param_name);
  const missing = vars.filter((v) => !names.includes(v));
  const extra = names.filter((n) => typeof n !== 'string' || !vars.includes(n));
  if (missing.length || extra.length || new Set(names).size !== names.length)
    return {
      path: at('example', key),
      type: 'named_example_mismatch',
      message: `components[${i}].example.${key} must give one example per named variable of the text (${vars.join(', ')})${
        missing.length ? `; missing: ${missing.join(', ')}` : ''
      }${extra.length ? `; not in the text: ${extra.map(String).join(', ')}` : ''}`,
    };
  return undefined;
}

/** A component of an AUTHENTICATION template: the provider writes its texts; only its own fields may be set. */
function authenticationComponent(c: Json, type: string, i: number): Problem | undefined {
  const at = (...rest: Array<string | number>) => ['components', i, ...rest];
  if (type === 'HEADER' || type === 'CALL_PERMISSION_REQUEST')
    return { path: at('type'), type: 'authentication_component', message: `an AUTHENTICATION template has no ${type} component` };
  if ((type === 'BODY' || type === 'FOOTER') && c.text !== undefined)
    return {
      path: at('text'),
      type: 'authentication_body_text',
      message: `an AUTHENTICATION template's ${type.toLowerCase()} is the provider's fixed text ("<code> is your verification code."${
        type === 'FOOTER' ? ', "This code expires in N minutes."' : ''
      }): leave text out${type === 'BODY' ? ' (add_security_recommendation adds the security line)' : ' (code_expiration_minutes sets the expiry line)'}`,
    };
  if (type === 'BODY' && c.example !== undefined)
    return { path: at('example'), type: 'authentication_body_text', message: "an AUTHENTICATION template's body has no example: its text is fixed" };
  if (type === 'BUTTONS' && Array.isArray(c.buttons)) {
    const j = c.buttons.findIndex((x) => upper((x as Json).type) !== 'OTP');
    if (j >= 0 || c.buttons.length !== 1)
      return {
        path: j >= 0 ? at('buttons', j, 'type') : at('buttons'),
        type: 'otp_button_missing',
        message: 'an AUTHENTICATION template has exactly one button, an OTP button (COPY_CODE, ONE_TAP or ZERO_TAP)',
      };
  }
  return undefined;
}

/** provider's time-to-live ranges: 30-900 s (AUTHENTICATION), 30-43200 s (UTILITY), or -1 for 30 days; MARKETING's the provider decides. */
function ttlProblem(ttl: unknown, category: string): Problem | undefined {
  if (typeof ttl !== 'number' || ttl === -1) return undefined;
  const range: Record<string, [number, number]> = { AUTHENTICATION: [30, 900], UTILITY: [30, 43_200], MARKETING: [30, 2_592_000] };
  const [min, max] = range[category] ?? [30, 2_592_000];
  if (ttl >= min && ttl <= max) return undefined;
  return {
    path: ['message_send_ttl_seconds'],
    type: 'ttl_out_of_range',
    message: `message_send_ttl_seconds of a ${category} template is ${min} to ${max} seconds, or -1 (30 days)`,
  };
}
