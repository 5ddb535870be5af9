import type Joi from 'joi';
import { AppError, type ValidationIssue } from '@gateway/errors';

/** joi error types → the stable machine words of the `detail` form. */
const TYPE_WORDS: Record<string, string> = {
  'any.required': 'missing',
  'any.only': 'enum',
  'any.invalid': 'value_error',
  'any.unknown': 'extra_forbidden',
  'object.unknown': 'extra_forbidden',
  'object.base': 'object_type',
  'object.missing': 'missing',
  'object.xor': 'value_error',
  'object.oxor': 'value_error',
  'object.with': 'missing',
  'object.without': 'value_error',
  'string.base': 'string_type',
  'string.empty': 'string_too_short',
  'string.min': 'string_too_short',
  'string.max': 'too_long',
  'string.guid': 'invalid_uuid',
  'string.uri': 'url_parsing',
  'string.uriCustomScheme': 'url_scheme',
  'string.email': 'value_error.email',
  'string.pattern.base': 'string_pattern_mismatch',
  'string.pattern.name': 'string_pattern_mismatch',
  'number.base': 'number_type',
  'number.integer': 'int_type',
  'number.min': 'greater_than_equal',
  'number.max': 'less_than_equal',
  'number.infinity': 'finite_number',
  'boolean.base': 'bool_type',
  'array.base': 'list_type',
  'array.min': 'too_short',
  'array.max': 'too_many_items',
  'array.unique': 'duplicate_item',
  'array.includesRequiredUnknowns': 'missing',
  'date.base': 'datetime_type',
  'string.isoDate': 'datetime_parsing',
};

export type Location = 'body' | 'query' | 'path' | 'header';

/** Converts joi details (abortEarly: false) into spec-form issues under `where`. */
export function issuesFrom(where: Location, error: Joi.ValidationError): ValidationIssue[] {
  return error.details.map((d) => {
    const ctx: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(d.context ?? {})) {
      if (k === 'label' || k === 'key' || k === 'value') continue;
      if (v === undefined || typeof v === 'function') continue;
      if (v instanceof RegExp) ctx[k] = v.source;
      else if (typeof v !== 'object' || v === null || Array.isArray(v)) ctx[k] = v;
    }
    // custom rules raise 'custom.<word>' errors (with a message in .messages()) to report their own stable word
    let type = d.type.startsWith('custom.') ? d.type.slice('custom.'.length) : (TYPE_WORDS[d.type] ?? d.type.replace(/\./g, '_'));
    // joi reports "not a URL at all" and "a URL with another scheme" alike; tell them apart
    if (d.type === 'string.uriCustomScheme' && typeof d.context?.value === 'string' && !URL.canParse(d.context.value)) type = 'url_parsing';
    return {
      loc: [where, ...d.path.map((p) => String(p))],
      msg: d.message.replace(/"/g, ''),
      type,
      input: d.context?.value === undefined ? null : d.context.value,
      ctx,
    };
  });
}

export interface ValidationParts {
  body?: [Joi.Schema, unknown];
  query?: [Joi.Schema, unknown];
  path?: [Joi.Schema, unknown];
  header?: [Joi.Schema, unknown];
}

/** Validates every part and throws one 422 listing every problem of every part. */
export function validateParts<T extends { body?: unknown; query?: unknown; path?: unknown; header?: unknown }>(parts: ValidationParts): T {
  const issues: ValidationIssue[] = [];
  const out: Record<string, unknown> = {};
  for (const where of ['path', 'query', 'header', 'body'] as const) {
    const part = parts[where];
    if (!part) continue;
    const [schema, value] = part;
    const result = schema.validate(value, { abortEarly: false, convert: where !== 'body', errors: { wrap: { label: false } } });
    if (result.error) issues.push(...issuesFrom(where, result.error));
    else out[where] = result.value;
  }
  if (issues.length) throw AppError.validation(issues);
  return out as T;
}
