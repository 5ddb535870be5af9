import type Router from '@koa/router';
import type { Context } from 'koa';
import { isAppError } from '@gateway/errors';
import type Joi from 'joi';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { messaging as m } from '@gateway/contracts';
import { MESSAGE_KINDS, sendRequest, type MessageKind, type SendBody } from '@gateway/message-kinds';
import { callerContext, respondNull } from '../idempotency';
import * as s from '../schemas/messaging';
import type { Services } from '../services';
import { validateParts } from '../validation';
import { operation, type ResponseSpec } from '../openapi/operation';
import type { RegisterRoutes } from './context';

type Caller = MessageInitShape<typeof m.CallerContextSchema>;

/** What a messaging operation answers: a send's message id and the headers its kind adds. */
interface Outcome {
  messageId?: string;
  replayed: boolean;
  headers?: Record<string, string>;
}

export interface Operation<Body extends { client_id: string }> {
  schema: Joi.Schema;
  /** For the API description. */
  summary: string;
  /** A message send: answers `X-Message-Id` (and its kind's `answerHeaders`). */
  sends?: boolean;
  answerHeaders?: Array<{ name: string; description: string }>;
  /** Calls the messaging service with the validated body. */
  call(services: Services, caller: Caller, body: Body): Promise<Outcome>;
}

/**
 * A send of one message kind: the kind's checks that need another service (the flow a send opens must be the
 * client's), then the messaging service's `Send` with the validated body, answering the headers the kind declares.
 */
function sendOperation<B extends SendBody>(kind: MessageKind<string, B>): Operation<B> {
  return {
    schema: kind.schema,
    summary: kind.summary,
    sends: true,
    answerHeaders: kind.answerHeaders,
    call: async (svc, caller, body) => {
      const flow = kind.flow?.(body);
      // a flow the flows service knows under another business account is not this client's to send; while the
      // flows service is unreachable sends go on (the provider still checks the flow against the sender)
      if (flow) {
        await svc.flows.checkFlowUse({ caller: { tenantId: caller.tenantId, clientId: caller.clientId }, flowId: flow.flowId }).catch((e: unknown) => {
          if (!isAppError(e) || (e.kind !== 'unavailable' && e.kind !== 'timeout')) throw e;
        });
      }
      const r = await svc.sends.send({ caller, ...sendRequest(kind, body) });
      const headers: Record<string, string> = {};
      for (const { name } of kind.answerHeaders) if (r.headers[name] !== undefined) headers[name] = r.headers[name];
      return { messageId: r.result?.messageId, replayed: r.result?.replayed ?? false, headers };
    },
  };
}

/** A route for `op` at /api/messaging/<name>, its operation id the name in camelCase (`block-users` → `blockUsers`). */
function route<B extends { client_id: string }>(name: string, op: Operation<B>) {
  return (router: Router, services: Services) => {
    const path = `/api/messaging/${name}`;
    router.post(
      path,
      messagingOperation(
        name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()),
        op,
      ),
      operationHandler(services, path, op),
    );
  };
}

type Users = { client_id: string; users: string[] };
type MessageRef = { client_id: string; message_id: string };

/** The messaging operations that are not sends (spec 4.3). */
const OTHER_OPERATIONS = [
  route<Users>('block-users', {
    summary: 'Block users from messaging the client',
    schema: s.usersBody,
    call: async (svc, caller, b) => ({ replayed: (await svc.messaging.blockUsers({ caller, users: b.users })).replayed }),
  }),
  route<Users>('unblock-users', {
    summary: 'Unblock users',
    schema: s.usersBody,
    call: async (svc, caller, b) => ({ replayed: (await svc.messaging.unblockUsers({ caller, users: b.users })).replayed }),
  }),
  route<MessageRef>('indicate-typing', {
    summary: 'Show a typing indicator (and mark the message read)',
    schema: s.messageIdBody,
    call: async (svc, caller, b) => ({ replayed: (await svc.messaging.indicateTyping({ caller, messageId: b.message_id })).replayed }),
  }),
  route<MessageRef>('mark-read', {
    summary: 'Mark an inbound message read',
    schema: s.messageIdBody,
    call: async (svc, caller, b) => ({ replayed: (await svc.messaging.markRead({ caller, messageId: b.message_id })).replayed }),
  }),
];

/**
 * Validates headers and body (every problem in one 422, before any service call), then calls the service
 * with the caller's tenant, client and idempotency key, and answers `200 null` (+ `X-Message-Id` for sends).
 */
export function operationHandler<B extends { client_id: string }>(services: Services, operationPath: string, op: Operation<B>) {
  return async (ctx: Context) => {
    const { header: headers, body } = validateParts<{ header: { 'idempotency-key'?: string }; body: B }>({
      header: [s.idempotencyHeaders, ctx.headers],
      body: [op.schema, ctx.request.body],
    });
    const caller = callerContext(ctx, operationPath, body.client_id, headers['idempotency-key']);
    const res = await op.call(services, caller, body);
    if (res.messageId) ctx.set('X-Message-Id', res.messageId);
    if (res.headers) ctx.set(res.headers);
    respondNull(ctx, res.replayed);
  };
}

/** The description of a messaging operation: `200 null`, the message id of a send in `X-Message-Id`. */
export function messagingOperation<B extends { client_id: string }>(operationId: string, op: Operation<B>, tags = ['Messaging']) {
  const headers: ResponseSpec['headers'] = op.sends
    ? { 'X-Message-Id': { description: "The provider's message id of the send (`wamid.…`).", schema: { type: 'string' }, required: true } }
    : {};
  for (const h of op.answerHeaders ?? []) headers[h.name] = { description: h.description, schema: { type: 'string' }, required: true };
  return operation({
    operationId,
    summary: op.summary,
    tags,
    idempotent: true,
    request: { headers: s.idempotencyHeaders, body: op.schema },
    responses: {
      200: {
        description: op.sends ? 'Sent (accepted by the provider); a repeat under the same Idempotency-Key replays this answer.' : 'Done.',
        schema: null,
        headers,
      },
    },
    // the client is missing or another tenant's; inactive, closed window, key reuse; provider limits; provider refusal
    errors: [404, 409, 429, 502],
  });
}

/** POST /api/messaging/<kind's path> for every message kind (@gateway/message-kinds), then the other operations. */
export const registerMessagingRoutes: RegisterRoutes = (router, { services }) => {
  const kinds: readonly MessageKind[] = MESSAGE_KINDS;
  for (const kind of kinds) {
    const path = `/api/messaging/${kind.path}`;
    const op = sendOperation(kind);
    router.post(path, messagingOperation(kind.operationId, op), operationHandler(services, path, op));
  }
  for (const register of OTHER_OPERATIONS) register(router, services);
};
