import type { ValidationIssue } from './app-error';

/**
 * One problem a schema validator reported (the shape of a joi `ValidationErrorItem`, so this library needs no
 * joi): its error type, where in the value it sits, its message and its context (`value`, `limit`...).
 */
export interface SchemaErrorItem {
  type: string;
  path: Array<string | number>;
  message: string;
  context?: { value?: unknown; [key: string]: unknown };
}

/** joi error types → the stable machine words of the `detail` form. */
const TYPE_WORDS: Record<string, string> = {
  'any.required': 'missing',
  'any.only': 'enum',
  'any.invalid': 'value_error',
  'any.unknown': 'extra_forbidden',
  'object.unknown': 'extra_forbidden',
  'object.base': 'object_type',
  'object.min': 'too_few_properties',
  'object.max': 'too_many_properties',
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

/**
 * A schema validator's problems (joi, `abortEarly: false`) as spec-form issues under `where` (`body`, `query`,
 * `path`, `header`): the first `max` of them. The edge validates every request with it, and the messaging service
 * checks a send's body again with the same words.
 */
export function issuesFrom(where: string, error: { details: SchemaErrorItem[] }, max = Infinity): ValidationIssue[] {
  return error.details.slice(0, max).map((d) => {
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
