import { GraphError, invalidParameter } from '../errors';
import { arr, obj, oneOf, str } from '../validate/checks';
import { TEMPLATE_CATEGORIES, variablesOf } from './model';

type Json = Record<string, unknown>;

export interface NewTemplate {
  name: string;
  language: string;
  category: string;
  components: Json[];
}

/** error_data is a plain string on template-management errors (reference §0.1). */
export const templateError = (details: string, subcode?: number) =>
  new GraphError(400, 100, 'Invalid parameter', { subcode, details, userTitle: 'Invalid template', userMsg: details, plainErrorData: true });

function examples(c: Json, key: string, path: string): unknown[] {
  const ex = c.example === undefined ? undefined : obj(c.example, `${path}.example`);
  const v = ex?.[key];
  if (!Array.isArray(v) || v.length === 0) throw templateError(`${path}.example.${key} is required when the text has variables`);
  return v;
}

function header(c: Json, path: string): void {
  const format = oneOf(String(c.format ?? '').toUpperCase(), `${path}.format`, ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT', 'LOCATION']);
  if (format === 'TEXT') {
    const vars = variablesOf(str(c.text, `${path}.text`, { max: 60 }));
    if (vars.length > 1) throw templateError(`${path}.text may have at most one variable`);
    if (vars.length) examples(c, 'header_text', path);
  } else if (format !== 'LOCATION') {
    examples(c, 'header_handle', path);
  }
}

function body(c: Json, path: string): void {
  const vars = variablesOf(str(c.text, `${path}.text`, { max: 1024 }));
  if (!vars.length) return;
  const rows = examples(c, 'body_text', path);
  const first = rows[0];
  if (!Array.isArray(first) || first.length !== vars.length) throw templateError(`${path}.example.body_text must give one example per variable (${vars.length})`);
}

function buttons(c: Json, path: string): void {
  const list = arr(c.buttons, `${path}.buttons`, { min: 1, max: 10 }).map((b, i) => obj(b, `${path}.buttons[${i}]`));
  const count = (t: string) => list.filter((b) => String(b.type).toUpperCase() === t).length;
  if (count('URL') > 2) throw templateError('A template can have at most 2 URL buttons');
  if (count('PHONE_NUMBER') > 1) throw templateError('A template can have at most 1 PHONE_NUMBER button');
  list.forEach((b, i) => {
    const p = `${path}.buttons[${i}]`;
    const type = oneOf(String(b.type ?? '').toUpperCase(), `${p}.type`, ['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE', 'OTP', 'FLOW']);
    if (type !== 'OTP' && type !== 'COPY_CODE') str(b.text, `${p}.text`, { max: 25 });
    if (type === 'URL') {
      const vars = variablesOf(str(b.url, `${p}.url`, { max: 2000 }));
      if (vars.length > 1 || (vars.length === 1 && !/\{\{\s*[A-Za-z0-9_]+\s*\}\}$/.test(String(b.url)))) throw templateError(`${p}.url may end in one variable only`);
      if (vars.length && (!Array.isArray(b.example) || b.example.length === 0)) throw templateError(`${p}.example is required for a URL with a variable`);
    }
    if (type === 'PHONE_NUMBER') str(b.phone_number, `${p}.phone_number`, { max: 20 });
  });
}

/** Validates a create request like the provider (supplement §4). */
export function validateNewTemplate(b: Json): NewTemplate {
  const name = str(b.name, 'name', { max: 512 })!;
  if (!/^[a-z0-9_]+$/.test(name)) throw templateError('name may contain only lowercase letters, digits and underscores');
  const language = str(b.language, 'language', { max: 15 })!;
  if (!/^[a-z]{2,3}(_[A-Z]{2,4})?$/.test(language)) throw invalidParameter(`language ${language} is not a supported locale`);
  const category = oneOf(String(b.category ?? '').toUpperCase(), 'category', TEMPLATE_CATEGORIES);
  const components = arr(b.components, 'components', { min: 1, max: 10 }).map((c, i) => obj(c, `components[${i}]`));
  const types = components.map((c, i) => oneOf(String(c.type ?? '').toUpperCase(), `components[${i}].type`, ['HEADER', 'BODY', 'FOOTER', 'BUTTONS']));
  const count = (t: string) => types.filter((x) => x === t).length;
  if (count('BODY') !== 1) throw templateError('A template needs exactly one BODY component');
  for (const t of ['HEADER', 'FOOTER', 'BUTTONS']) if (count(t) > 1) throw templateError(`A template can have at most one ${t} component`);
  components.forEach((c, i) => {
    const path = `components[${i}]`;
    if (types[i] === 'HEADER') header(c, path);
    if (types[i] === 'BODY') body(c, path);
    if (types[i] === 'FOOTER' && variablesOf(str(c.text, `${path}.text`, { max: 60 })).length) throw templateError(`${path}.text may not have variables`);
    if (types[i] === 'BUTTONS') buttons(c, path);
  });
  return { name, language, category, components: components.map((c, i) => ({ ...c, type: types[i] })) };
}
