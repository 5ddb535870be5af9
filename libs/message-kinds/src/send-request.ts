import { AppError } from '@gateway/errors';
import type { MessageKind, SendBody } from './kind';
import { kindNamed } from './registry';

/** What the edge sends the messaging service for one send (`messaging.v1.SendRequest` without the caller). */
export interface SendRequestBody {
  kind: string;
  bodyJson: string;
}

/** A send of `kind` with its validated body, as the `Send` RPC carries it. */
export function sendRequest<B extends SendBody>(kind: MessageKind<string, B>, body: B): SendRequestBody {
  return { kind: kind.name, bodyJson: JSON.stringify(body) };
}

/**
 * The kind and body of a `Send` RPC, checked again with the kind's schema: an unknown kind is a `503
 * message_kind_unknown`, a body this build's schema refuses a `422` like the edge's.
 */
export function readSendRequest(r: SendRequestBody): { kind: MessageKind; body: SendBody } {
  const kind = kindNamed(r.kind);
  let value: unknown;
  try {
    value = JSON.parse(r.bodyJson);
  } catch {
    throw AppError.validation([{ loc: ['body'], msg: 'body is not JSON', type: 'json_invalid', input: null, ctx: {} }]);
  }
  return { kind, body: kind.parse(value) };
}
