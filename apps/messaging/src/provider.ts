import type { Counter } from 'prom-client';
import { toAppError } from '@gateway/errors';

export interface Credentials {
  phoneNumberId: string;
  accessToken: string;
}

export interface BlockOutcome {
  /** Users the provider blocked (or unblocked). */
  done: string[];
  /** Users it could not, each with the provider's errors. */
  failed: Array<{ user: string; errors: unknown[] }>;
}

/**
 * The provider calls messaging makes. Failures are AppErrors (rate_limited with Retry-After,
 * provider_rejected with provider_error, timeout, unavailable). `operation` names the call for metrics.
 */
export interface ProviderPort {
  /** POST /{phone_number_id}/messages with a message; the provider's message id. */
  sendMessage(operation: string, c: Credentials, payload: Record<string, unknown>): Promise<string>;
  /** POST /{phone_number_id}/messages with a read receipt (and typing indicator). */
  markRead(operation: string, c: Credentials, payload: Record<string, unknown>): Promise<void>;
  /** POST (block) or DELETE (unblock) /{phone_number_id}/block_users. */
  blockUsers(operation: string, c: Credentials, payload: Record<string, unknown>, block: boolean): Promise<BlockOutcome>;
  /** POST /{phone_number_id}/calls. */
  call(operation: string, c: Credentials, payload: Record<string, unknown>): Promise<void>;
}

/** Counts every provider call by operation, outcome (`ok` or the error kind) and code (the provider's error code, else ours). */
export function countedProvider(inner: ProviderPort, calls: Counter<'operation' | 'outcome' | 'code'>): ProviderPort {
  const counted =
    <A extends unknown[], T>(fn: (operation: string, ...args: A) => Promise<T>) =>
    async (operation: string, ...args: A): Promise<T> => {
      try {
        const result = await fn(operation, ...args);
        calls.inc({ operation, outcome: 'ok', code: '' });
        return result;
      } catch (e) {
        const err = toAppError(e);
        const providerCode = (err.details.provider_error as { code?: unknown } | undefined)?.code;
        calls.inc({ operation, outcome: err.kind, code: providerCode === undefined || providerCode === null ? err.code : String(providerCode) });
        throw err;
      }
    };
  return {
    sendMessage: counted(inner.sendMessage.bind(inner)),
    markRead: counted(inner.markRead.bind(inner)),
    blockUsers: counted(inner.blockUsers.bind(inner)),
    call: counted(inner.call.bind(inner)),
  };
}
