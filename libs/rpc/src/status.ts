import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { AppError, type ErrorKind } from '@gateway/errors';

/**
 * AppError <-> gRPC status. The status code is chosen to be meaningful to generic gRPC tooling; the exact
 * kind, stable code and details travel in trailing metadata so the edge can map them to HTTP once.
 */
const KIND_TO_STATUS: Record<ErrorKind, status> = {
  validation: status.INVALID_ARGUMENT,
  unauthenticated: status.UNAUTHENTICATED,
  forbidden: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  method_not_allowed: status.UNIMPLEMENTED,
  conflict: status.FAILED_PRECONDITION,
  request_timeout: status.DEADLINE_EXCEEDED,
  too_large: status.INVALID_ARGUMENT,
  unsupported_media: status.INVALID_ARGUMENT,
  rate_limited: status.RESOURCE_EXHAUSTED,
  provider_rejected: status.ABORTED,
  unavailable: status.UNAVAILABLE,
  timeout: status.DEADLINE_EXCEEDED,
  internal: status.INTERNAL,
};

const KINDS = new Set(Object.keys(KIND_TO_STATUS));
const MD_KIND = 'x-error-kind';
const MD_CODE = 'x-error-code';
const MD_DETAILS = 'x-error-details-bin';
/** The same JSON, deflated: what servers send now (MD_DETAILS is still read from older peers). */
const MD_DETAILS_Z = 'x-error-details-z-bin';
/**
 * Trailers travel in one HTTP/2 header block that peers cap at 64 KiB; an error whose details overflow it
 * would reach the caller as a broken connection. Details are sent deflated under this budget.
 */
const DETAILS_BUDGET_BYTES = 32 * 1024;

/** A copy with every string cut to `max` characters (deep, for validation issues and provider errors). */
export function boundStrings(v: unknown, max: number, depth = 0): unknown {
  if (typeof v === 'string') return v.length > max ? `${v.slice(0, max)}…` : v;
  if (!v || typeof v !== 'object') return v;
  if (depth > 16) return null;
  if (Array.isArray(v)) return v.map((x) => boundStrings(x, max, depth + 1));
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, boundStrings(x, max, depth + 1)]));
}

/**
 * The details, deflated, within DETAILS_BUDGET_BYTES: every issue with strings up to 1000 characters when
 * that fits (a flow with hundreds of invalid screens does), shorter strings when not, and only as a last
 * resort fewer issues, ending with one that says how many were left out.
 */
export function encodeErrorDetails(details: Record<string, unknown>): Buffer {
  for (const max of [1000, 200, 50]) {
    const z = deflateRawSync(JSON.stringify(boundStrings(details, max)));
    if (z.length <= DETAILS_BUDGET_BYTES) return z;
  }
  const issues = Array.isArray(details.detail) ? (details.detail as unknown[]) : [];
  for (let keep = Math.floor(issues.length / 2); ; keep = Math.floor(keep / 2)) {
    const shown = [
      ...issues.slice(0, keep),
      { loc: [], msg: `${issues.length - keep} more problems not shown`, type: 'too_many_errors', input: null, ctx: { total: issues.length } },
    ];
    const z = deflateRawSync(JSON.stringify(boundStrings({ ...details, detail: shown }, 50)));
    if (z.length <= DETAILS_BUDGET_BYTES || keep === 0) return z;
  }
}

function decodeErrorDetails(md: Metadata): Record<string, unknown> {
  try {
    const z = md.get(MD_DETAILS_Z)[0];
    if (z instanceof Buffer) return JSON.parse(inflateRawSync(z).toString('utf8')) as Record<string, unknown>;
    const raw = md.get(MD_DETAILS)[0];
    if (raw instanceof Buffer) return JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  } catch {
    // unreadable details: the kind and code still say what happened
  }
  return {};
}
const MD_RETRY = 'x-error-retry-after';

export function appErrorToGrpc(e: AppError): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set(MD_KIND, e.kind);
  metadata.set(MD_CODE, e.code);
  metadata.set(MD_DETAILS_Z, encodeErrorDetails(e.details));
  if (e.retryAfterSeconds !== undefined) metadata.set(MD_RETRY, String(e.retryAfterSeconds));
  // internal errors never leak their message across the boundary; the message is a trailer too: bounded
  const details = e.kind === 'internal' ? 'internal error' : e.message.slice(0, 1000);
  return { code: KIND_TO_STATUS[e.kind], details, metadata };
}

export function grpcToAppError(err: ServiceError, method: string): AppError {
  const md = err.metadata;
  const kind = md?.get(MD_KIND)[0];
  if (typeof kind === 'string' && KINDS.has(kind)) {
    const code = String(md.get(MD_CODE)[0] ?? 'error');
    const details = decodeErrorDetails(md);
    const retry = md.get(MD_RETRY)[0];
    return new AppError(kind as ErrorKind, code, err.details, {
      details,
      retryAfterSeconds: retry === undefined ? undefined : Number(retry),
    });
  }
  switch (err.code) {
    case status.UNAVAILABLE:
      return new AppError('unavailable', 'service_unavailable', `backing service unavailable (${method})`, { cause: err });
    case status.DEADLINE_EXCEEDED:
      return new AppError('timeout', 'service_timeout', `backing service timed out (${method})`, { cause: err });
    case status.NOT_FOUND:
      return new AppError('not_found', 'not_found', err.details, { cause: err });
    case status.INVALID_ARGUMENT:
      return new AppError('validation', 'invalid_argument', err.details, { cause: err });
    case status.UNAUTHENTICATED:
      return new AppError('unauthenticated', 'unauthenticated', err.details, { cause: err });
    default:
      return new AppError('internal', 'rpc_failed', `${method}: ${err.details || err.message}`, { cause: err });
  }
}
