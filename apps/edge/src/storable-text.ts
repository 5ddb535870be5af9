import type { ValidationIssue } from '@gateway/errors';

/**
 * What the edge accepts as input text and structure, so nothing reaches a service that PostgreSQL cannot
 * store (it refuses U+0000 in `text`/`jsonb`, and lone surrogates in `jsonb`) or that recursion in a
 * serializer cannot handle (deeply nested JSON). Checked once at the edge, before any work.
 */
export const MAX_JSON_DEPTH = 64;
/** Enough to name a few problems; a hostile body with thousands of NULs gets the first ones. */
const MAX_ISSUES = 10;

/** NUL-free and well formed (no lone surrogate). */
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && (s as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * The deepest nesting of arrays and objects in a JSON text, read without parsing (so 60,000 levels cost a
 * scan, not a recursion), stopping as soon as `max` is exceeded.
 */
export function jsonDepthExceeds(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

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
