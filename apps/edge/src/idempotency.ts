import type { Context } from 'koa';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { messaging } from '@gateway/contracts';
import { sha256Hex } from '@gateway/crypto';
import { tenantOf } from './auth';

/** JSON with object keys sorted at every level: equal bodies hash equally whatever their key order or spacing. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Who calls which client, with the request's `Idempotency-Key` (already validated) and a SHA-256 of the
 * operation and the canonical body, by which the messaging service tells a replay from a reused key.
 */
export function callerContext(
  ctx: Context,
  operation: string,
  clientId: string,
  idempotencyKey: string | undefined,
): MessageInitShape<typeof messaging.CallerContextSchema> {
  return {
    tenantId: tenantOf(ctx),
    clientId,
    idempotencyKey: idempotencyKey ?? '',
    requestHash: idempotencyKey ? sha256Hex(`${operation}\n${canonicalJson(ctx.request.body)}`) : '',
  };
}

/** Success of messaging, call and flow operations: `200` with the JSON body `null`. */
export function respondNull(ctx: Context, replayed = false): void {
  ctx.status = 200;
  ctx.type = 'application/json';
  ctx.body = null;
  if (replayed) ctx.set('Idempotent-Replayed', 'true');
}
