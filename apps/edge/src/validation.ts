import type Joi from 'joi';
import { AppError, issuesFrom, type ValidationIssue } from '@gateway/errors';
import { InputBounds } from './input-bounds';

export type Location = 'body' | 'query' | 'path' | 'header';

/** The most problems one 422 lists; the others are counted in `more_issues` (http-errors.ts). */
export const MAX_ISSUES = 100;

/** How many problems joi found in the last `validate` of a capped schema (read right after it: validation is synchronous). */
let lastProblemCount = 0;
/** Per `convert` (every part but the body converts strings): the schema capped, with its preferences baked in. */
const cappedSchemas = { true: new WeakMap<Joi.Schema, Joi.Schema>(), false: new WeakMap<Joi.Schema, Joi.Schema>() };

/**
 * The schema with its problems cut to MAX_ISSUES before joi renders their messages (half its cost per problem),
 * their number kept in `lastProblemCount`, and the edge's preferences set on it once: joi merges a schema's own
 * preferences with its defaults once and keeps the result, where options passed to every `validate` were merged
 * again on every request.
 */
function capped(schema: Joi.Schema, convert: boolean): Joi.Schema {
  const cache = cappedSchemas[`${convert}`];
  let c = cache.get(schema);
  if (!c) {
    c = schema
      .error((reports) => {
        lastProblemCount = reports.length;
        return reports.slice(0, MAX_ISSUES) as Joi.ErrorReport[];
      })
      .prefs({ abortEarly: false, convert, errors: { wrap: { label: false } } });
    cache.set(schema, c);
  }
  return c;
}

export interface ValidationParts {
  body?: [Joi.Schema, unknown];
  query?: [Joi.Schema, unknown];
  path?: [Joi.Schema, unknown];
  header?: [Joi.Schema, unknown];
}

/**
 * Validates every part and throws one 422 listing every problem of every part: the first MAX_ISSUES of them,
 * and how many more there are. joi sees each part cut to its schema's limits first (input-bounds.ts), so no
 * body under the size limit costs more than the schema allows, whatever it holds.
 */
export function validateParts<T extends { body?: unknown; query?: unknown; path?: unknown; header?: unknown }>(parts: ValidationParts): T {
  const issues: ValidationIssue[] = [];
  let more = 0;
  const out: Record<string, unknown> = {};
  const bounds = new InputBounds();
  for (const where of ['path', 'query', 'header', 'body'] as const) {
    const part = parts[where];
    if (!part) continue;
    const [schema, value] = part;
    lastProblemCount = 0;
    const result = capped(schema, where !== 'body').validate(bounds.bound(schema, value));
    if (!result.error) {
      out[where] = result.value;
      continue;
    }
    const found = issuesFrom(where, result.error, MAX_ISSUES - issues.length);
    issues.push(...found);
    more += Math.max(lastProblemCount, result.error.details.length) - found.length;
  }
  more += bounds.uncheckedUnknownKeys;
  if (issues.length || more) throw AppError.validation(issues, undefined, more);
  return out as T;
}
