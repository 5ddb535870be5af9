import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/**
 * The request context travels with the async call chain, so logs, outgoing gRPC metadata and NATS headers
 * pick up the request id without it being threaded through every function.
 */
export interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runWithContext<T>(ctx: RequestContext, fn: () => T): T {
  return storage.run(ctx, fn);
}

export function currentContext(): RequestContext | undefined {
  return storage.getStore();
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

export const REQUEST_ID_HEADER = 'x-request-id';

/** Accept a caller's id only when it is short and printable; otherwise mint one. */
export function normalizeRequestId(candidate: unknown): string {
  if (typeof candidate === 'string' && /^[\w.:-]{1,128}$/.test(candidate)) return candidate;
  return randomUUID();
}
