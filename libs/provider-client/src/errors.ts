import { AppError, type ProviderErrorInfo } from '@gateway/errors';

/** The provider's synchronous error envelope (provider reference §0.1). */
export interface ProviderErrorBody {
  error?: {
    message?: string;
    type?: string;
    code?: number;
    error_subcode?: number;
    error_data?: unknown;
    error_user_title?: string;
    error_user_msg?: string;
    is_transient?: boolean;
    fbtrace_id?: string;
  };
}

/** Throttling codes: per-number throughput, pair rate, WABA and app call limits. */
const THROTTLING = new Set([130429, 131056, 80007, 4]);
/** Codes the provider documents as transient (retry with backoff). */
export const TRANSIENT_CODES = new Set([1, 2, 131000, 131016, 139103]);

/** Seconds to wait when the provider gives no Retry-After (its own guidance per code, reference §8). */
function defaultRetryAfter(code: number): number {
  switch (code) {
    case 131056:
      return 6; // one message per 6 s to the same user
    case 130429:
      return 1;
    default:
      return 60; // app/WABA call limits (4, 80007)
  }
}

export function providerErrorInfo(body: ProviderErrorBody | undefined, fallbackMessage: string): ProviderErrorInfo {
  const e = body?.error;
  return {
    code: typeof e?.code === 'number' ? e.code : null,
    subcode: typeof e?.error_subcode === 'number' ? e.error_subcode : null,
    message: typeof e?.message === 'string' ? e.message : fallbackMessage,
    type: typeof e?.type === 'string' ? e.type : null,
    trace_id: typeof e?.fbtrace_id === 'string' ? e.fbtrace_id : null,
  };
}

/**
 * Classifies a provider error by `error.code`, never by HTTP status (the provider answers throttling with
 * 400 as often as 429). A body without the envelope is classified by status: 5xx → unavailable.
 */
export function classifyProviderError(status: number, body: unknown, retryAfterHeader?: string): AppError {
  const envelope = body && typeof body === 'object' && 'error' in body ? (body as ProviderErrorBody) : undefined;
  if (!envelope?.error || typeof envelope.error.code !== 'number') {
    if (status >= 500) return new AppError('unavailable', 'provider_unavailable', `Provider answered HTTP ${status}`);
    const info = providerErrorInfo(undefined, `Provider answered HTTP ${status}`);
    return new AppError('provider_rejected', 'provider_error', info.message, { details: { provider_error: info } });
  }
  const info = providerErrorInfo(envelope, 'Provider error');
  const code = info.code!;
  const details = { provider_error: info };
  if (THROTTLING.has(code)) {
    const header = Number(retryAfterHeader);
    const retryAfterSeconds = Number.isFinite(header) && header > 0 ? header : defaultRetryAfter(code);
    return new AppError('rate_limited', 'provider_rate_limited', info.message, { details, retryAfterSeconds });
  }
  if (code === 190) return new AppError('provider_rejected', 'provider_token_invalid', 'The provider rejected the access token', { details });
  return new AppError('provider_rejected', 'provider_error', info.message, { details });
}

export function isTransientProviderError(e: AppError): boolean {
  const code = (e.details.provider_error as ProviderErrorInfo | undefined)?.code;
  return e.kind === 'unavailable' || (code !== null && code !== undefined && TRANSIENT_CODES.has(code));
}
