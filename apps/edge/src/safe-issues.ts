import type { ValidationIssue } from '@gateway/errors';
import { isSecretField } from '@gateway/logger';

/**
 * What a 422 may echo of the request (decisions.md: `input` is the offending value). Values of fields that
 * hold secrets (`SECRET_FIELDS` of @gateway/logger, the list the logs are redacted by) are never echoed,
 * anywhere in the input; anything else is echoed as it was when it is small and shallow, else as a short string
 * preview, so a hostile body never comes back as a huge or deep answer.
 */
const MAX_TEXT = 200;
const MAX_SHALLOW_DEPTH = 3;
const REDACTED = '[redacted]';

export function safeIssues(issues: ValidationIssue[]): ValidationIssue[] {
  return issues.map(safeIssue);
}

function safeIssue(issue: ValidationIssue): ValidationIssue {
  const secret = issue.loc.some((p) => isSecretField(p));
  // joi quotes the value in some messages (pattern mismatches): drop it for secrets, bound it for the rest
  let msg = String(issue.msg);
  if (secret && typeof issue.input === 'string' && issue.input) msg = msg.split(issue.input).join(REDACTED);
  return {
    loc: issue.loc.map((p) => truncate(String(p))),
    msg: truncate(msg, 500),
    type: issue.type,
    input: secret ? REDACTED : preview(issue.input),
    ctx: bounded(issue.ctx, 0) as Record<string, unknown>,
  };
}

function truncate(s: string, max = MAX_TEXT): string {
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

/** A copy with secret values replaced and strings bounded; containers nested past the limit become '…'. */
function bounded(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return truncate(v);
  if (!v || typeof v !== 'object') return v;
  if (depth >= 8) return '…';
  if (Array.isArray(v)) return v.slice(0, 50).map((x) => bounded(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v).slice(0, 50)) out[truncate(k)] = isSecretField(k) ? REDACTED : bounded(x, depth + 1);
  return out;
}

function depthOf(v: unknown, limit: number): number {
  if (!v || typeof v !== 'object' || limit <= 0) return 0;
  let max = 0;
  for (const x of Object.values(v)) max = Math.max(max, depthOf(x, limit - 1));
  return max + 1;
}

function preview(input: unknown): unknown {
  if (input === undefined) return null;
  if (typeof input !== 'object' || input === null) return typeof input === 'string' ? truncate(input) : input;
  const copy = bounded(input, 0);
  const text = JSON.stringify(copy);
  if (text.length <= MAX_TEXT && depthOf(copy, MAX_SHALLOW_DEPTH + 1) <= MAX_SHALLOW_DEPTH) return copy;
  return truncate(text);
}
