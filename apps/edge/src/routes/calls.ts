import type { Context } from 'koa';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { messaging as m } from '@gateway/contracts';
import { tenantOf } from '../auth';
import { ListCursors } from '../cursors';
import { callerContext } from '../idempotency';
import { Call, CallConnected, CallingSettings, CallPermission, pageOf, respond } from '../presenters';
import * as s from '../schemas/calls';
import { idempotencyHeaders } from '../schemas/messaging';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';
import { messagingOperation, operationHandler, type Operation } from './messaging';

type Caller = MessageInitShape<typeof m.CallerContextSchema>;
const callCaller = (c: Caller) => ({ tenantId: c.tenantId, clientId: c.clientId, idempotencyKey: c.idempotencyKey, requestHash: c.requestHash });

type CallRef = { client_id: string; call_id: string };
type Answer = CallRef & { sdp: string; biz_opaque_callback_data?: string };

/** The actions on a user-initiated call (provider-2026.md §7.2), each `200 null`, each added to the call's record. */
const ACTIONS: Array<{ path: string; operationId: string; op: Operation<Answer> }> = [
  {
    path: 'pre-accept',
    operationId: 'preAcceptCall',
    op: {
      schema: s.preAcceptCallBody,
      summary: "Pre-accept an inbound call with the agent's SDP answer (media can start before the accept: no clipped audio)",
      call: async (svc, caller, b) => ({
        replayed: (await svc.calls.callAction({ caller: callCaller(caller), callId: b.call_id, action: 'pre_accept', sdp: b.sdp })).replayed,
      }),
    },
  },
  {
    path: 'accept',
    operationId: 'acceptCall',
    op: {
      schema: s.acceptCallBody,
      summary: "Accept an inbound call with the agent's SDP answer (the pre-accept's, if one was sent)",
      call: async (svc, caller, b) => ({
        replayed: (
          await svc.calls.callAction({
            caller: callCaller(caller),
            callId: b.call_id,
            action: 'accept',
            sdp: b.sdp,
            bizOpaqueCallbackData: b.biz_opaque_callback_data,
          })
        ).replayed,
      }),
    },
  },
  {
    path: 'reject',
    operationId: 'rejectCall',
    op: {
      schema: s.callIdBody,
      summary: 'Reject an inbound call that was not accepted',
      call: async (svc, caller, b) => ({
        replayed: (await svc.calls.callAction({ caller: callCaller(caller), callId: b.call_id, action: 'reject' })).replayed,
      }),
    },
  },
  {
    path: 'terminate',
    operationId: 'terminateCall',
    op: {
      schema: s.callIdBody,
      summary: 'Hang up a call (an accepted inbound call, or a business-initiated one)',
      call: async (svc, caller, b) => ({
        replayed: (await svc.calls.callAction({ caller: callCaller(caller), callId: b.call_id, action: 'terminate' })).replayed,
      }),
    },
  },
];

interface ConnectBody {
  client_id: string;
  to?: string;
  recipient?: string;
  sdp: string;
  biz_opaque_callback_data?: string;
}

interface SettingsBody {
  enabled?: boolean;
  call_icon_visibility?: string;
  call_hours?: Record<string, unknown>;
  callback_permission?: boolean;
}

const Calls = pageOf(Call);

/**
 * The Calling API (spec 4.4 and provider-2026.md §7): actions on calls, business-initiated calls, the users' call
 * permissions, call records and a client's calling settings. Another tenant's client or call is a 404.
 */
export const registerCallRoutes: RegisterRoutes = (router, { services, config }) => {
  for (const { path, operationId, op } of ACTIONS) {
    const full = `/api/call/${path}`;
    router.post(full, messagingOperation(operationId, op, ['Calls']), operationHandler(services, full, op));
  }

  router.post(
    '/api/call/connect',
    operation({
      operationId: 'connectCall',
      summary: "Call a user (business-initiated) with the agent's SDP offer",
      description:
        'The user must have granted call permission (`send-call-permission-request`, then their `call_permission_reply`; `GET /api/call/permissions`): ' +
        "without it the provider refuses (`409 call_permission_missing`). The user's SDP answer and the call's progress arrive as `chat` events (`calls` webhooks); the record is `GET /api/calls/{call_id}`.",
      tags: ['Calls'],
      idempotent: true,
      request: { headers: idempotencyHeaders, body: s.connectCallBody },
      responses: { 200: json("The provider's call id; a repeat under the same Idempotency-Key replays it.", CallConnected) },
      errors: [404, 409, 429, 502],
    }),
    async (ctx: Context) => {
      const { header, body } = validateParts<{ header: { 'idempotency-key'?: string }; body: ConnectBody }>({
        header: [idempotencyHeaders, ctx.headers],
        body: [s.connectCallBody, ctx.request.body],
      });
      const caller = callerContext(ctx, '/api/call/connect', body.client_id, header['idempotency-key']);
      const res = await services.calls.connect({
        caller: callCaller(caller),
        to: body.to ?? '',
        recipient: body.recipient ?? '',
        sdp: body.sdp,
        bizOpaqueCallbackData: body.biz_opaque_callback_data ?? '',
      });
      if (res.replayed) ctx.set('Idempotent-Replayed', 'true');
      respond(ctx, CallConnected, { callId: res.callId });
    },
  );

  router.get(
    '/api/call/permissions',
    operation({
      operationId: 'getCallPermission',
      summary: "A user's call permission, as the provider has it",
      tags: ['Calls'],
      request: { query: s.callPermissionsQuery },
      responses: { 200: json('The permission and what the business may do now.', CallPermission) },
      errors: [404, 409, 429, 502],
    }),
    async (ctx: Context) => {
      const { query } = validateParts<{ query: { client_id: string; to?: string; recipient?: string } }>({ query: [s.callPermissionsQuery, ctx.query] });
      const res = await services.calls.getCallPermission({
        tenantId: tenantOf(ctx),
        clientId: query.client_id,
        to: query.to ?? '',
        recipient: query.recipient ?? '',
      });
      respond(ctx, CallPermission, res.permission);
    },
  );

  const cursors = new ListCursors(config.adminToken);
  router.get(
    '/api/calls',
    operation({
      operationId: 'listCalls',
      summary: "A client's calls, newest first, a page at a time",
      tags: ['Calls'],
      request: { query: s.listCallsQuery },
      responses: { 200: json('A page of call records.', Calls) },
      errors: [404],
    }),
    async (ctx: Context) => {
      const { query } = validateParts<{ query: { client_id: string; limit: number; cursor?: string } }>({ query: [s.listCallsQuery, ctx.query] });
      const scope = ['calls', tenantOf(ctx), query.client_id];
      const res = await services.calls.listCalls({
        tenantId: tenantOf(ctx),
        clientId: query.client_id,
        limit: query.limit,
        cursor: cursors.open(scope, query.cursor),
      });
      respond(ctx, Calls, { items: res.calls, nextCursor: cursors.seal(scope, res.nextCursor) });
    },
  );

  router.get(
    '/api/calls/:call_id',
    operation({
      operationId: 'getCall',
      summary: 'A call and its timeline (ringing, pre-accepted, accepted, rejected, terminated, missed)',
      description: "Built from the provider's `calls` webhooks and the actions taken through the gateway; start, end and duration from the terminate webhook.",
      tags: ['Calls'],
      request: { path: s.callPath, query: s.callQuery },
      responses: { 200: json('The call.', Call) },
      errors: [404],
    }),
    async (ctx: Context) => {
      const { path, query } = validateParts<{ path: { call_id: string }; query: { client_id: string } }>({
        path: [s.callPath, ctx.params],
        query: [s.callQuery, ctx.query],
      });
      const res = await services.calls.getCall({ tenantId: tenantOf(ctx), clientId: query.client_id, callId: path.call_id });
      respond(ctx, Call, res.call);
    },
  );

  router.get(
    '/api/clients/:id/calling',
    operation({
      operationId: 'getCallingSettings',
      summary: "A client's calling settings, as the provider has them",
      tags: ['Calls'],
      request: { path: s.clientPath },
      responses: { 200: json('The settings.', CallingSettings) },
      errors: [404, 409, 429, 502],
    }),
    async (ctx: Context) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [s.clientPath, ctx.params] });
      const res = await services.calls.getCallingSettings({ tenantId: tenantOf(ctx), clientId: path.id });
      respond(ctx, CallingSettings, res.settings);
    },
  );

  router.put(
    '/api/clients/:id/calling',
    operation({
      operationId: 'updateCallingSettings',
      summary: "Change a client's calling settings at the provider (only the fields given)",
      description:
        "Passed to the provider's number settings (`calling`): `enabled` is its `status`, `callback_permission` its `callback_permission_status`, `call_hours` replaces the call hours whole (omitting `holiday_schedule` clears the holidays). The same settings again change nothing. Clients may take up to 7 days to show a change.",
      tags: ['Calls'],
      request: { path: s.clientPath, body: s.callingSettingsBody },
      responses: { 200: json('The settings after the change.', CallingSettings) },
      errors: [404, 409, 429, 502],
    }),
    async (ctx: Context) => {
      const { path, body } = validateParts<{ path: { id: string }; body: SettingsBody }>({
        path: [s.clientPath, ctx.params],
        body: [s.callingSettingsBody, ctx.request.body],
      });
      const res = await services.calls.updateCallingSettings({
        caller: { tenantId: tenantOf(ctx), clientId: path.id },
        enabled: body.enabled,
        callIconVisibility: body.call_icon_visibility,
        callHoursJson: body.call_hours === undefined ? undefined : JSON.stringify(body.call_hours),
        callbackPermission: body.callback_permission,
      });
      respond(ctx, CallingSettings, res.settings);
    },
  );
};
