import type { ValidationIssue } from '@gateway/errors';
import { isStorableText, jsonDepthExceeds as depthExceeds } from '@gateway/storable-text';

export { isStorableText };

/**
 * What the edge accepts as input text and structure, so nothing reaches a service that PostgreSQL cannot
 * store (it refuses U+0000 in `text`/`jsonb`, and lone surrogates in `jsonb`) or that recursion in a
 * serializer cannot handle (deeply nested JSON). Checked once at the edge, before any work.
 */
export const MAX_JSON_DEPTH = 64;
/** Enough to name a few problems; a hostile body with thousands of NULs gets the first ones. */
const MAX_ISSUES = 10;

/** The nesting of a JSON text beyond MAX_JSON_DEPTH (default), scanned without recursion. */
export const jsonDepthExceeds = (text: string, max = MAX_JSON_DEPTH): boolean => depthExceeds(text, max);

const unstorable = (loc: string[], input: string): ValidationIssue => ({
  loc,
  msg: 'Text must not contain NUL characters or unpaired surrogates',
  type: 'string_unstorable',
  input: input.length > 64 ? `${input.slice(0, 64)}…` : input,
  ctx: {},
});

/** Every string and object key in a parsed JSON value (depth already bounded) that cannot be stored. */
export function unstorableTextIssues(value: unknown, loc: string[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: Array<[unknown, string[]]> = [[value, loc]];
  while (stack.length && issues.length < MAX_ISSUES) {
    const [v, at] = stack.pop()!;
    if (typeof v === 'string') {
      if (!isStorableText(v)) issues.push(unstorable(at, v));
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...at, String(i)]]);
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, child] = entries[i];
        if (!isStorableText(k)) issues.push(unstorable([...at, k], k));
        else stack.push([child, [...at, k]]);
      }
    }
  }
  return issues.slice(0, MAX_ISSUES);
}
