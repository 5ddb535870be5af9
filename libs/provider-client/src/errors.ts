import { AppError, type ErrorKind, type ProviderErrorInfo, type ValidationIssue } from '@gateway/errors';
import { ruleFor, type ErrorRule } from './error-table';

/** The provider's synchronous error envelope (provider reference §0.1). */
export interface ProviderErrorBody {
  error?: {
    message?: string;
    type?: string;
    code?: number;
    error_subcode?: number;
    /** An object with `details` on messaging errors; a plain string on some template-management errors. */
    error_data?: unknown;
    error_user_title?: string;
    error_user_msg?: string;
    is_transient?: boolean;
    fbtrace_id?: string;
  };
}

const KIND_BY_STATUS: Record<ErrorRule['status'], ErrorKind> = {
  404: 'not_found',
  409: 'conflict',
  422: 'validation',
  429: 'rate_limited',
  502: 'provider_rejected',
  503: 'unavailable',
};

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The provider's error, every field the tenant may need to act on it (never the token). */
export function providerErrorInfo(body: ProviderErrorBody | undefined, fallbackMessage: string): ProviderErrorInfo {
  const e = body?.error;
  const data = e?.error_data;
  const details = typeof data === 'string' ? str(data) : data && typeof data === 'object' ? str((data as { details?: unknown }).details) : null;
  return {
    code: typeof e?.code === 'number' ? e.code : null,
    subcode: typeof e?.error_subcode === 'number' ? e.error_subcode : null,
    message: typeof e?.message === 'string' ? e.message : fallbackMessage,
    type: typeof e?.type === 'string' ? e.type : null,
    trace_id: typeof e?.fbtrace_id === 'string' ? e.fbtrace_id : null,
    details,
    user_title: str(e?.error_user_title),
    user_message: str(e?.error_user_msg),
  };
}

/** Seconds of `Retry-After` for a rule: the provider's header wins; `4^n` grows with the pair's failed attempts. */
function retryAfterOf(rule: ErrorRule, header: string | undefined, pairFailures: number): number | undefined {
  const fromHeader = Number(header);
  if (header !== undefined && Number.isFinite(fromHeader) && fromHeader > 0) return fromHeader;
  if (rule.retryAfter === '4^n') return 4 ** Math.min(pairFailures, 6);
  return rule.retryAfter;
}

/**
 * Classifies a provider error by `error.code` (and subcode), never by HTTP status: the provider answers
 * throttling with 400 as often as 429 (reference §0.1). The tenant gets the rule's status and code, and
 * `provider_error` with the provider's own fields. A body without the envelope is classified by HTTP status.
 */
export function classifyProviderError(status: number, body: unknown, retryAfterHeader?: string, opts: { pairFailures?: number } = {}): AppError {
  const envelope = body && typeof body === 'object' && 'error' in body ? (body as ProviderErrorBody) : undefined;
  if (!envelope?.error || typeof envelope.error.code !== 'number') {
    if (status >= 500) return new AppError('unavailable', 'provider_unavailable', `Provider answered HTTP ${status}`);
    const info = providerErrorInfo(undefined, `Provider answered HTTP ${status}`);
    return new AppError('provider_rejected', 'provider_error', info.message, { details: { provider_error: info, retryable: false } });
  }
  const info = providerErrorInfo(envelope, 'Provider error');
  const rule = ruleFor(info.code, info.subcode);
  const kind = KIND_BY_STATUS[rule.status];
  const message = info.details ? `${info.message}: ${info.details}` : info.message;
  const details: Record<string, unknown> = { provider_error: info, retryable: rule.retryable };
  if (kind === 'validation') {
    const issue: ValidationIssue = { loc: rule.field ?? ['body'], msg: message, type: rule.code, input: null, ctx: { provider_code: info.code } };
    details.detail = [issue];
  }
  return new AppError(kind, rule.code, message, { details, retryAfterSeconds: retryAfterOf(rule, retryAfterHeader, opts.pairFailures ?? 0) });
}

/** The provider's code on an error the provider client raised, whatever the tenant-facing kind. */
export function providerCodeOf(e: AppError): number | null {
  const code = (e.details?.provider_error as ProviderErrorInfo | undefined)?.code;
  return typeof code === 'number' ? code : null;
}

/** A provider-side hiccup worth retrying at once: transport failures before sending, and the transient codes. */
export function isTransientProviderError(e: AppError): boolean {
  if (e.kind === 'unavailable' && providerCodeOf(e) === null) return true;
  const info = e.details?.provider_error as ProviderErrorInfo | undefined;
  return info ? ruleFor(info.code, info.subcode).transient === true : false;
}

/** Whether the same request may succeed later: the key of a retryable failure is not kept as a final outcome. */
export function isRetryableProviderError(e: AppError): boolean {
  if (e.details?.retryable === true) return true;
  return isTransientProviderError(e);
}
