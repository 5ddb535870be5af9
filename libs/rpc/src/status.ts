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
  conflict: status.FAILED_PRECONDITION,
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
const MD_RETRY = 'x-error-retry-after';

export function appErrorToGrpc(e: AppError): Partial<ServiceError> {
  const metadata = new Metadata();
  metadata.set(MD_KIND, e.kind);
  metadata.set(MD_CODE, e.code);
  metadata.set(MD_DETAILS, Buffer.from(JSON.stringify(e.details), 'utf8'));
  if (e.retryAfterSeconds !== undefined) metadata.set(MD_RETRY, String(e.retryAfterSeconds));
  // internal errors never leak their message across the boundary
  const details = e.kind === 'internal' ? 'internal error' : e.message;
  return { code: KIND_TO_STATUS[e.kind], details, metadata };
}

export function grpcToAppError(err: ServiceError, method: string): AppError {
  const md = err.metadata;
  const kind = md?.get(MD_KIND)[0];
  if (typeof kind === 'string' && KINDS.has(kind)) {
    const code = String(md.get(MD_CODE)[0] ?? 'error');
    const raw = md.get(MD_DETAILS)[0];
    let details: Record<string, unknown> = {};
    if (raw instanceof Buffer) {
      try {
        details = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        details = {};
      }
    }
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
