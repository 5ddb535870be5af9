import { AppError, toAppError, type ErrorKind } from '@gateway/errors';
import { boundStrings } from './status';

/**
 * An AppError as a value inside an answer (`CallError` of business.proto, `SendError` of messaging.proto): what a
 * batched call answers in an item's place where a single call would fail with a status. Bounded and redacted as
 * the status is: an internal error's message never crosses, strings are cut to 1,000 characters.
 */
export interface CallErrorValue {
  kind: string;
  code: string;
  message: string;
  detailsJson: string;
  retryAfterSeconds?: bigint;
}

export function toCallError(e: unknown): CallErrorValue {
  const err = toAppError(e);
  return {
    kind: err.kind,
    code: err.code,
    message: err.kind === 'internal' ? 'internal error' : err.message.slice(0, 1000),
    detailsJson: JSON.stringify(boundStrings(err.details, 1000)),
    retryAfterSeconds: err.retryAfterSeconds === undefined ? undefined : BigInt(err.retryAfterSeconds),
  };
}

/** The AppError an item's error value stands for (what the single call would have thrown). */
export function fromCallError(e: CallErrorValue): AppError {
  let details: Record<string, unknown> = {};
  try {
    details = e.detailsJson ? (JSON.parse(e.detailsJson) as Record<string, unknown>) : {};
  } catch {
    // unreadable details: the kind and code still say what happened
  }
  return new AppError(e.kind as ErrorKind, e.code, e.message, {
    details,
    retryAfterSeconds: e.retryAfterSeconds === undefined ? undefined : Number(e.retryAfterSeconds),
  });
}
