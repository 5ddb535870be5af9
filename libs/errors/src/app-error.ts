/**
 * Errors are values with a stable machine code. A service throws an AppError; the rpc library carries
 * kind, code and details across gRPC; the edge maps the kind to an HTTP status exactly once.
 */
export type ErrorKind =
  | 'validation' // 422, details.detail holds ValidationIssue[]
  | 'unauthenticated' // 401
  | 'forbidden' // 403 (authenticated, but the request is refused: e.g. a cookie request without its CSRF token)
  | 'not_found' // 404 (also: belongs to another tenant)
  | 'method_not_allowed' // 405 (a known path asked with another method)
  | 'conflict' // 409 (wrong state, idempotency key reuse, inactive client)
  | 'request_timeout' // 408 (the request's body did not arrive in time)
  | 'too_large' // 413
  | 'unsupported_media' // 415
  | 'rate_limited' // 429, retryAfterSeconds
  | 'provider_rejected' // 502, details.provider_error
  | 'unavailable' // 503
  | 'timeout' // 504
  | 'internal'; // 500: a bug, never bad input

export interface ValidationIssue {
  loc: string[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

export interface ProviderErrorInfo {
  code: number | null;
  subcode: number | null;
  message: string;
  type: string | null;
  trace_id: string | null;
  /** The provider's `error_data.details` (or `error_data` when it is a plain string). */
  details?: string | null;
  /** The provider's `error_user_title` / `error_user_msg`: text meant for the business's user. */
  user_title?: string | null;
  user_message?: string | null;
}

export interface AppErrorOptions {
  details?: Record<string, unknown>;
  retryAfterSeconds?: number;
  cause?: unknown;
}

export class AppError extends Error {
  readonly kind: ErrorKind;
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly retryAfterSeconds?: number;

  constructor(kind: ErrorKind, code: string, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.kind = kind;
    this.code = code;
    this.details = options.details ?? {};
    this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** `moreIssues`: problems found but not listed (a 422 lists at most 100, the edge's MAX_ISSUES). */
  static validation(issues: ValidationIssue[], message = 'Request validation failed', moreIssues = 0): AppError {
    return new AppError('validation', 'validation_failed', message, {
      details: moreIssues > 0 ? { detail: issues, more_issues: moreIssues } : { detail: issues },
    });
  }

  /** A list cursor that was never issued (or not for this list): a 422 naming `cursor`. */
  static invalidCursor(cursor: string, message = 'Invalid cursor'): AppError {
    return AppError.validation([{ loc: ['query', 'cursor'], msg: message, type: 'cursor_invalid', input: cursor, ctx: {} }]);
  }

  static notFound(code: string, message: string): AppError {
    return new AppError('not_found', code, message);
  }

  static conflict(code: string, message: string, details?: Record<string, unknown>): AppError {
    return new AppError('conflict', code, message, { details });
  }

  get issues(): ValidationIssue[] {
    const d = this.details.detail;
    return Array.isArray(d) ? (d as ValidationIssue[]) : [];
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** Wrap anything thrown into an AppError without losing an existing one. */
export function toAppError(e: unknown): AppError {
  if (e instanceof AppError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new AppError('internal', 'internal_error', message, { cause: e });
}
