import type { ErrorKind } from '@gateway/errors';
import { AppError } from '@gateway/errors';
import { safeIssues } from './safe-issues';
import { MAX_ISSUES } from './validation';

/** The one place an error kind becomes an HTTP status (decisions.md "Other errors"). */
export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  validation: 422,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  request_timeout: 408,
  too_large: 413,
  unsupported_media: 415,
  rate_limited: 429,
  provider_rejected: 502,
  unavailable: 503,
  timeout: 504,
  internal: 500,
};

export interface HttpErrorResponse {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export function toHttpError(e: AppError): HttpErrorResponse {
  const status = STATUS_BY_KIND[e.kind];
  const headers: Record<string, string> = {};
  if (e.kind === 'validation') {
    // the validation form, bounded: the first MAX_ISSUES problems and the number of the others (whoever found them)
    const all = e.issues;
    const body: Record<string, unknown> = { detail: safeIssues(all.slice(0, MAX_ISSUES)) };
    const more = all.length - Math.min(all.length, MAX_ISSUES) + (Number.isSafeInteger(e.details.more_issues) ? (e.details.more_issues as number) : 0);
    if (more > 0) body.more_issues = more;
    // a provider's refusal of an input (a 422 of docs/provider-errors.md) adds its code and provider_error
    if (e.code !== 'validation_failed' && e.code !== 'invalid_argument') {
      body.code = e.code;
      for (const [k, v] of Object.entries(e.details)) if (k !== 'detail' && k !== 'more_issues') body[k] = v;
    }
    return { status, headers, body };
  }
  if (e.kind === 'unauthenticated') headers['WWW-Authenticate'] = 'Bearer';
  if (e.retryAfterSeconds !== undefined) headers['Retry-After'] = String(Math.max(1, Math.ceil(e.retryAfterSeconds)));
  const body: Record<string, unknown> = {
    detail: e.kind === 'internal' ? 'Internal server error' : e.message,
    code: e.kind === 'internal' ? 'internal_error' : e.code,
  };
  // provider_error and other safe structured details (e.g. failed_users) travel with 4xx/5xx answers
  if (e.kind !== 'internal') {
    for (const [k, v] of Object.entries(e.details)) if (k !== 'detail') body[k] = v;
  }
  return { status, headers, body };
}
