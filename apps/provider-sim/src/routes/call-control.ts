import type { Context } from 'koa';
import type Router from '@koa/router';
import { normalize, type Call, type SimState } from '../state';
import type { WebhookSender } from '../webhooks';
import { CallWebhooks } from './calls';
import { jsonBody } from './graph';

type Json = Record<string, unknown>;

/** An SDP as a WebRTC client would send it (the simulator carries no media). */
export const SIM_SDP =
  'v=0\r\no=- 4611731400430051336 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111\r\nc=IN IP4 0.0.0.0\r\na=rtpmap:111 opus/48000/2\r\n';

/**
 * The simulated users' side of calls (control API, not the provider's): place an inbound call, answer, decline or
 * hang up, let a call ring out, and reply to a call permission request. Each sends the provider's webhooks
 * (provider-2026.md §7.2–7.4) and answers what the webhook delivery got.
 */
export function registerCallControl(router: Router, state: SimState, webhooks: WebhookSender): void {
  const hooks = new CallWebhooks(state, webhooks);
  const send = async (ctx: Context, body: Json, extra: Json = {}) => {
    const res = await webhooks.send(body);
    ctx.body = { ...extra, status: res.status, body: JSON.parse(res.body) as Json };
  };
  const refuse = (ctx: Context, status: number, error: string) => {
    ctx.status = status;
    ctx.body = { error };
  };
  const callOf = (ctx: Context): Call | undefined => {
    const call = state.calls.get(ctx.params.callId);
    if (!call) refuse(ctx, 404, 'unknown call');
    return call;
  };

  /** A customer calls the business number: the `connect` webhook with the user's SDP offer; the call rings. */
  router.post('/_sim/inbound/call', async (ctx) => {
    const b = jsonBody(ctx);
    const phone = state.phones.get(String(b.phone_number_id));
    if (!phone) return refuse(ctx, 404, 'unknown phone_number_id');
    if (!state.calling.enabled(phone.id)) return refuse(ctx, 409, 'calling is not enabled on this number: the user sees no call button');
    const from = normalize(String(b.from ?? '16505551234'));
    const id = state.wacid();
    const call: Call = { id, phoneId: phone.id, from, state: 'ringing', direction: 'USER_INITIATED' };
    state.calls.set(id, call);
    await send(ctx, hooks.connect(call, phone, 'offer', SIM_SDP), { call_id: id });
  });

  router.get('/_sim/calls/:callId', (ctx) => {
    const call = callOf(ctx);
    if (call) ctx.body = { id: call.id, state: call.state, direction: call.direction ?? 'USER_INITIATED', from: call.from };
  });

  /** The user answers a business-initiated call: `connect` with the user's SDP answer, then `ACCEPTED`. */
  router.post('/_sim/calls/:callId/answer', async (ctx) => {
    const call = callOf(ctx);
    if (!call) return;
    if (call.direction !== 'BUSINESS_INITIATED' || call.state !== 'ringing')
      return refuse(ctx, 409, `call is ${call.state}; only a ringing business call is answered`);
    const phone = state.phones.get(call.phoneId)!;
    call.state = 'accepted';
    call.acceptedAt = state.now();
    await webhooks.send(hooks.connect(call, phone, 'answer', SIM_SDP));
    await send(ctx, hooks.status(call, phone, 'ACCEPTED'));
  });

  /** The user declines a business-initiated call: `REJECTED`, then the terminate webhook. */
  router.post('/_sim/calls/:callId/decline', async (ctx) => {
    const call = callOf(ctx);
    if (!call) return;
    if (call.direction !== 'BUSINESS_INITIATED' || call.state !== 'ringing')
      return refuse(ctx, 409, `call is ${call.state}; only a ringing business call is declined`);
    const phone = state.phones.get(call.phoneId)!;
    call.state = 'ended';
    await webhooks.send(hooks.status(call, phone, 'REJECTED'));
    await send(ctx, hooks.terminate(call, phone));
  });

  /** The user hangs up (or gives up while it rings): the terminate webhook. */
  router.post('/_sim/calls/:callId/hangup', async (ctx) => {
    const call = callOf(ctx);
    if (!call) return;
    if (call.state === 'ended') return refuse(ctx, 409, 'call is over');
    call.state = 'ended';
    await send(ctx, hooks.terminate(call, state.phones.get(call.phoneId)!));
  });

  /** Nobody answered in time (30–60 s at the provider): the terminate webhook of an unanswered call. */
  router.post('/_sim/calls/:callId/timeout', async (ctx) => {
    const call = callOf(ctx);
    if (!call) return;
    if (call.state === 'ended' || call.state === 'accepted') return refuse(ctx, 409, `call is ${call.state}`);
    call.state = 'ended';
    await send(ctx, hooks.terminate(call, state.phones.get(call.phoneId)!));
  });

  /**
   * The user answers the business's last call permission request (`response` accept or reject, `permanent`): the
   * permission changes and the interactive `call_permission_reply` arrives on the `messages` field.
   */
  router.post('/_sim/inbound/call-permission-reply', async (ctx) => {
    const b = jsonBody(ctx);
    const phone = state.phones.get(String(b.phone_number_id));
    if (!phone) return refuse(ctx, 404, 'unknown phone_number_id');
    const from = normalize(String(b.from ?? '16505551234'));
    const request = state.calling.lastRequest(phone.id, from);
    if (!request) return refuse(ctx, 409, 'no call permission request was sent to this user');
    const accept = b.response !== 'reject';
    const permanent = b.permanent === true;
    const now = state.now();
    const granted = state.calling.reply(phone.id, from, accept, permanent, now);
    const wamid = state.wamid();
    state.recordInbound(phone.id, from, wamid);
    const reply: Json = { response: accept ? 'accept' : 'reject', is_permanent: permanent, response_source: 'user_action' };
    if (granted?.expiresAt) reply.expiration_timestamp = Math.floor(granted.expiresAt / 1000);
    const message: Json = {
      from,
      id: wamid,
      timestamp: String(Math.floor(now / 1000)),
      type: 'interactive',
      context: { from: phone.display, id: request },
      interactive: { type: 'call_permission_reply', call_permission_reply: reply },
    };
    const body = webhooks.envelope(
      phone.wabaId,
      'messages',
      webhooks.messagesValue(phone, { contacts: [{ profile: { name: 'Test User' }, wa_id: from }], messages: [message] }),
    );
    await send(ctx, body, { wamid });
  });
}
