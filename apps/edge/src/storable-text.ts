import type { ValidationIssue } from '@gateway/errors';
import { isStorableText, jsonShapeExceeds } from '@gateway/storable-text';

export { isStorableText, jsonShapeExceeds };

/**
 * What the edge accepts as input text and structure, so nothing reaches a service that PostgreSQL cannot
 * store (it refuses U+0000 in `text`/`jsonb`, and lone surrogates in `jsonb`) or that recursion in a
 * serializer cannot handle (deeply nested JSON). Checked once at the edge, before any work.
 */
export const MAX_JSON_DEPTH = 64;
/**
 * The most members a JSON object of a request may have, counted before parsing (no schema takes more than 100
 * keys in one object; 50,000 keys cost more to parse than anything else a request does).
 */
export const MAX_OBJECT_MEMBERS = 1000;
/** Enough to name a few problems; a hostile body with thousands of NULs gets the first ones. */
const MAX_ISSUES = 10;

const unstorable = (loc: string[], input: string): ValidationIssue => ({
  loc,
  msg: 'Text must not contain NUL characters or unpaired surrogates',
  type: 'string_unstorable',
  input: input.length > 64 ? `${input.slice(0, 64)}…` : input,
  ctx: {},
});

/** A container being walked: where it is (its key in its parent) and which of its children comes next. */
interface Frame {
  container: unknown[] | Record<string, unknown>;
  /** An object's keys (undefined for an array). */
  keys: string[] | undefined;
  next: number;
  key: string | number;
  parent: Frame | undefined;
}

/** The path of a child of `f`: made only for a problem, never per value. */
function pathOf(base: string[], f: Frame, key: string | number): string[] {
  const keys = [String(key)];
  for (let at: Frame | undefined = f; at?.parent; at = at.parent) keys.push(String(at.key));
  return [...base, ...keys.reverse()];
}

/**
 * Every string and object key in a parsed JSON value (depth already bounded) that cannot be stored, the first
 * MAX_ISSUES of them in document order. Depth first with a cursor per container, so nothing is allocated per
 * value (a body of 120,000 strings is walked in milliseconds).
 */
export function unstorableTextIssues(value: unknown, loc: string[]): ValidationIssue[] {
  if (typeof value === 'string') return isStorableText(value) ? [] : [unstorable(loc, value)];
  if (!value || typeof value !== 'object') return [];
  const issues: ValidationIssue[] = [];
  const frame = (container: object, key: string | number, parent: Frame | undefined): Frame => ({
    container: container as Frame['container'],
    keys: Array.isArray(container) ? undefined : Object.keys(container),
    next: 0,
    key,
    parent,
  });
  const stack: Frame[] = [frame(value, '', undefined)];
  while (stack.length && issues.length < MAX_ISSUES) {
    const f = stack[stack.length - 1];
    const size = f.keys ? f.keys.length : (f.container as unknown[]).length;
    if (f.next >= size) {
      stack.pop();
      continue;
    }
    const i = f.next++;
    const key = f.keys ? f.keys[i] : i;
    if (typeof key === 'string' && !isStorableText(key)) {
      issues.push(unstorable(pathOf(loc, f, key), key));
      continue;
    }
    const child = f.keys ? (f.container as Record<string, unknown>)[key] : (f.container as unknown[])[i];
    if (typeof child === 'string') {
      if (!isStorableText(child)) issues.push(unstorable(pathOf(loc, f, key), child));
    } else if (child && typeof child === 'object') stack.push(frame(child, key, f));
  }
  return issues;
}

/**
 * Whether a JSON text may hold text that cannot be stored. Decoded request text never holds a raw lone
 * surrogate (invalid UTF-8 decodes to U+FFFD) and JSON refuses a raw NUL in a string, so only the escapes
 * `\u0000` and `\ud800`–`\udfff` can make one: without them the parsed value needs no walk. (A paired
 * surrogate or an escaped backslash before such letters gives a walk that finds nothing.)
 */
export const mayHoldUnstorableText = (json: string): boolean => /\\u(?:0000|d[89a-f])/i.test(json);
