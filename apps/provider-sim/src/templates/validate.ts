import { GraphError, invalidParameter } from '../errors';
import { arr, obj, oneOf, str } from '../validate/checks';
import { TEMPLATE_CATEGORIES } from './model';

type Json = Record<string, unknown>;

/** A create request as the provider keeps it: components' types in upper case, the rest as given. */
export interface NewTemplate {
  name: string;
  language: string;
  category: string;
  /** `POSITIONAL` or `NAMED`. */
  parameterFormat: 'POSITIONAL' | 'NAMED';
  messageSendTtlSeconds: number | null;
  components: Json[];
}

/** error_data is a plain string on template-management errors (reference §0.1). */
export const templateError = (details: string, subcode?: number) =>
  new GraphError(400, 100, 'Invalid parameter', { subcode, details, userTitle: 'Invalid template', userMsg: details, plainErrorData: true });

/** provider-2026.md §6.4: a variable's format or the header/body format (the subcode the provider gives such refusals). */
const FORMAT = 2388047;

/** An enum value in either case, as the provider's pages write them (`"category": "marketing"`); upper case back. */
function anyCase<T extends string>(v: unknown, path: string, values: readonly T[]): T {
  return oneOf(typeof v === 'string' ? v.toUpperCase() : v, path, values);
}

/** Every `{{…}}` of a text, trimmed, distinct, in order. */
function placeholders(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  return [...new Set([...text.matchAll(/\{\{([^{}]*)\}\}/g)].map((m) => m[1].trim()))];
}

/**
 * The variables of a text as the template's parameter format allows them (provider-2026.md §6.1): POSITIONAL
 * ones are `{{1}}`…`{{n}}` with no number missing; NAMED ones lowercase names.
 */
function checkVariables(text: unknown, path: string, format: NewTemplate['parameterFormat']): string[] {
  const vars = placeholders(text);
  for (const v of vars) {
    if (format === 'POSITIONAL' && !/^\d+$/.test(v)) {
      throw templateError(
        /^[a-z_][a-z0-9_]*$/.test(v)
          ? `${path} uses the named parameter {{${v}}} but parameter_format is not NAMED`
          : `${path} has an invalid parameter {{${v}}}`,
        FORMAT,
      );
    }
    if (format === 'NAMED' && !/^[a-z_][a-z0-9_]*$/.test(v))
      throw templateError(`${path}: named parameters are lowercase letters, digits and underscores, got {{${v}}}`, FORMAT);
  }
  if (format === 'POSITIONAL') {
    const sorted = vars.map(Number).sort((a, b) => a - b);
    if (sorted.some((n, i) => n !== i + 1)) throw templateError(`${path}: parameters must be sequential, starting at {{1}}`, FORMAT);
  }
  return vars;
}

function examples(c: Json, key: string, path: string): unknown[] {
  const ex = c.example === undefined ? undefined : obj(c.example, `${path}.example`);
  const v = ex?.[key];
  if (!Array.isArray(v) || v.length === 0) throw templateError(`${path}.example.${key} is required when the text has parameters`);
  return v;
}

/** NAMED examples: `{param_name, example}` for exactly the text's names. */
function namedExamples(c: Json, key: string, path: string, vars: string[]): void {
  const list = examples(c, key, path).map((p, i) => obj(p, `${path}.example.${key}[${i}]`));
  const names = list.map((p, i) => {
    str(p.example, `${path}.example.${key}[${i}].example`);
    return str(p.param_name, `${path}.example.${key}[${i}].param_name`)!;
  });
  if (names.length !== vars.length || vars.some((v) => !names.includes(v)))
    throw templateError(`${path}.example.${key} must give an example for each named parameter (${vars.join(', ')})`);
}

function header(c: Json, path: string, format: NewTemplate['parameterFormat']): void {
  const kind = anyCase(c.format ?? '', `${path}.format`, ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION']);
  if (kind === 'TEXT') {
    const vars = checkVariables(str(c.text, `${path}.text`, { max: 60 }), `${path}.text`, format);
    if (vars.length > 1) throw templateError(`${path}.text may have at most one parameter`);
    if (vars.length && format === 'NAMED') namedExamples(c, 'header_text_named_params', path, vars);
    else if (vars.length) examples(c, 'header_text', path);
  } else if (kind !== 'LOCATION') {
    examples(c, 'header_handle', path);
  }
}

function body(c: Json, path: string, format: NewTemplate['parameterFormat']): void {
  const vars = checkVariables(str(c.text, `${path}.text`, { max: 1024 }), `${path}.text`, format);
  if (!vars.length) return;
  if (format === 'NAMED') return namedExamples(c, 'body_text_named_params', path, vars);
  const first = examples(c, 'body_text', path)[0];
  if (!Array.isArray(first) || first.length !== vars.length)
    throw templateError(`${path}.example.body_text must give one example per parameter (${vars.length})`);
}

const BUTTON_TYPES = ['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE', 'OTP', 'FLOW', 'MPM', 'CATALOG', 'VOICE_CALL', 'REQUEST_CONTACT_INFO'] as const;

function buttons(c: Json, path: string, auth: boolean): void {
  const list = arr(c.buttons, `${path}.buttons`, { min: 1, max: 10 }).map((b, i) => obj(b, `${path}.buttons[${i}]`));
  const types = list.map((b, i) => anyCase(b.type ?? '', `${path}.buttons[${i}].type`, BUTTON_TYPES));
  const count = (t: string) => types.filter((x) => x === t).length;
  if (count('URL') > 2) throw templateError('A template can have at most 2 URL buttons');
  if (count('PHONE_NUMBER') > 1) throw templateError('A template can have at most 1 PHONE_NUMBER button');
  if (auth && (list.length !== 1 || types[0] !== 'OTP')) throw templateError('An authentication template has exactly one button, of type OTP');
  if (!auth && count('OTP')) throw templateError('OTP buttons are for authentication templates only');
  list.forEach((b, i) => {
    const p = `${path}.buttons[${i}]`;
    if (types[i] === 'OTP') return otpButton(b, p);
    if (types[i] !== 'COPY_CODE') str(b.text, `${p}.text`, { max: 25 });
    if (types[i] === 'URL') {
      const vars = placeholders(str(b.url, `${p}.url`, { max: 2000 }));
      if (vars.length > 1 || (vars.length === 1 && !/\{\{[^{}]*\}\}$/.test(String(b.url)))) throw templateError(`${p}.url may end in one parameter only`);
      if (vars.length && (b.example === undefined || (Array.isArray(b.example) && b.example.length === 0)))
        throw templateError(`${p}.example is required for a URL with a parameter`);
    }
    if (types[i] === 'PHONE_NUMBER') str(b.phone_number, `${p}.phone_number`, { max: 20 });
  });
}

/** provider-2026.md §6.2: COPY_CODE (`text` ≤ 25), ONE_TAP (+ autofill text and up to 5 apps), ZERO_TAP (+ the terms accepted). */
function otpButton(b: Json, p: string): void {
  const otp = anyCase(b.otp_type ?? '', `${p}.otp_type`, ['COPY_CODE', 'ONE_TAP', 'ZERO_TAP']);
  str(b.text, `${p}.text`, { required: false, max: 25 });
  const tap = otp !== 'COPY_CODE';
  for (const k of ['autofill_text', 'supported_apps', 'package_name', 'signature_hash']) {
    if (!tap && b[k] !== undefined) throw invalidParameter(`${p}.${k} is only for ONE_TAP and ZERO_TAP buttons`);
  }
  if (otp !== 'ZERO_TAP' && b.zero_tap_terms_accepted !== undefined) throw invalidParameter(`${p}.zero_tap_terms_accepted is only for ZERO_TAP buttons`);
  if (!tap) return;
  str(b.autofill_text, `${p}.autofill_text`, { required: false, max: 25 });
  if (b.supported_apps !== undefined) {
    arr(b.supported_apps, `${p}.supported_apps`, { min: 1, max: 5 }).forEach((a, i) => {
      const app = obj(a, `${p}.supported_apps[${i}]`);
      str(app.package_name, `${p}.supported_apps[${i}].package_name`, { max: 224 });
      if (str(app.signature_hash, `${p}.supported_apps[${i}].signature_hash`)!.length !== 11)
        throw invalidParameter(`${p}.supported_apps[${i}].signature_hash must be 11 characters`);
    });
  } else {
    // the older form: one app on the button itself (the OpenAPI file's example, its hash URL-encoded)
    str(b.package_name, `${p}.package_name`, { max: 224 });
    const hash = str(b.signature_hash, `${p}.signature_hash`)!;
    let plain = hash;
    try {
      plain = decodeURIComponent(hash);
    } catch {
      // the hash as given
    }
    if (plain.length !== 11) throw invalidParameter(`${p}.signature_hash must be 11 characters`);
  }
  if (otp === 'ZERO_TAP' && b.zero_tap_terms_accepted !== true)
    throw invalidParameter(`${p}.zero_tap_terms_accepted must be true: zero-tap buttons need the zero-tap terms accepted`);
}

/** The time-to-live ranges of sends (-1: 30 days); a marketing template's the provider applies on the Marketing Messages API. */
function ttl(v: unknown, category: string): number | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'number' || !Number.isInteger(v)) throw invalidParameter('message_send_ttl_seconds must be an integer');
  if (v === -1 && category !== 'MARKETING') return v;
  const [min, max] = category === 'AUTHENTICATION' ? [30, 900] : category === 'UTILITY' ? [30, 43_200] : [30, 2_592_000];
  if (v < min || v > max) throw invalidParameter(`message_send_ttl_seconds of a ${category} template must be between ${min} and ${max}`);
  return v;
}

const COMPONENT_TYPES = ['HEADER', 'BODY', 'FOOTER', 'BUTTONS', 'CALL_PERMISSION_REQUEST'] as const;

/** Validates a create request like the provider (supplement §4, provider-2026.md §6.1, §6.2). */
export function validateNewTemplate(b: Json): NewTemplate {
  const name = str(b.name, 'name', { max: 512 })!;
  if (!/^[a-z0-9_]+$/.test(name)) throw templateError('name may contain only lowercase letters, digits and underscores');
  const language = str(b.language, 'language', { max: 15 })!;
  if (!/^[a-z]{2,3}(_[A-Z]{2,4})?$/.test(language)) throw invalidParameter(`language ${language} is not a supported locale`);
  const category = anyCase(b.category ?? '', 'category', TEMPLATE_CATEGORIES);
  const format = b.parameter_format === undefined ? 'POSITIONAL' : anyCase(b.parameter_format, 'parameter_format', ['POSITIONAL', 'NAMED'] as const);
  const auth = category === 'AUTHENTICATION';
  const components = arr(b.components, 'components', { min: 1, max: 10 }).map((c, i) => obj(c, `components[${i}]`));
  const types = components.map((c, i) => anyCase(c.type ?? '', `components[${i}].type`, COMPONENT_TYPES));
  const count = (t: string) => types.filter((x) => x === t).length;
  if (count('BODY') !== 1) throw templateError('A template needs exactly one BODY component');
  for (const t of COMPONENT_TYPES) if (t !== 'BODY' && count(t) > 1) throw templateError(`A template can have at most one ${t} component`);
  if (auth && !count('BUTTONS')) throw templateError('An authentication template needs an OTP button');
  components.forEach((c, i) => {
    const path = `components[${i}]`;
    const type = types[i];
    if (auth) {
      if (type === 'HEADER' || type === 'CALL_PERMISSION_REQUEST') throw templateError(`An authentication template has no ${type} component`);
      // the body and footer texts are the provider's: a template may not bring its own (provider-2026.md §6.2)
      if ((type === 'BODY' || type === 'FOOTER') && c.text !== undefined)
        throw templateError(`${path}.text: the text of an authentication template is set by WhatsApp and cannot be provided`);
      if (c.add_security_recommendation !== undefined && typeof c.add_security_recommendation !== 'boolean')
        throw invalidParameter(`${path}.add_security_recommendation must be a boolean`);
      if (c.code_expiration_minutes !== undefined) {
        const m = c.code_expiration_minutes;
        if (typeof m !== 'number' || !Number.isInteger(m) || m < 1 || m > 90) throw invalidParameter(`${path}.code_expiration_minutes must be 1 to 90`);
      }
    } else {
      if (c.add_security_recommendation !== undefined || c.code_expiration_minutes !== undefined)
        throw invalidParameter(`${path}: add_security_recommendation and code_expiration_minutes are for authentication templates only`);
      if (type === 'HEADER') header(c, path, format);
      if (type === 'BODY') body(c, path, format);
      if (type === 'FOOTER' && placeholders(str(c.text, `${path}.text`, { max: 60 })).length) throw templateError(`${path}.text may not have parameters`);
    }
    if (type === 'BUTTONS') buttons(c, path, auth);
  });
  return {
    name,
    language,
    category,
    parameterFormat: format,
    messageSendTtlSeconds: ttl(b.message_send_ttl_seconds, category),
    components: components.map((c, i) => normalized(c, types[i])),
  };
}

/** A component as the provider keeps it: its enum values in upper case whatever case they came in. */
function normalized(c: Json, type: string): Json {
  const out: Json = { ...c, type };
  if (typeof c.format === 'string') out.format = c.format.toUpperCase();
  if (Array.isArray(c.buttons)) {
    out.buttons = (c.buttons as Json[]).map((b) => ({
      ...b,
      type: String(b.type).toUpperCase(),
      ...(typeof b.otp_type === 'string' ? { otp_type: b.otp_type.toUpperCase() } : {}),
    }));
  }
  return out;
}
