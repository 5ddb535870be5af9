import type Router from '@koa/router';
import { GraphError, invalidParameter, parameterValueInvalid } from '../errors';
import { normalize, type Call, type PhoneNumber, type SimState } from '../state';
import { obj, oneOf, str } from '../validate/checks';
import type { WebhookSender } from '../webhooks';
import { jsonBody, phoneFor } from './graph';

type Json = Record<string, unknown>;

/** The webhooks of the call state machine (provider-2026.md §7.2, §7.3), built from the simulator's clock. */
export class CallWebhooks {
  constructor(
    private readonly state: SimState,
    private readonly webhooks: WebhookSender,
  ) {}

  private seconds = (ms = this.state.now()) => String(Math.floor(ms / 1000));

  private value(phone: PhoneNumber, extra: Json): Json {
    return this.webhooks.envelope(phone.wabaId, 'calls', this.webhooks.messagesValue(phone, extra));
  }

  private ends(call: Call, phone: PhoneNumber) {
    const user = call.direction === 'BUSINESS_INITIATED' ? { from: phone.display, to: call.from } : { from: call.from, to: phone.display };
    return { id: call.id, ...user, direction: call.direction ?? 'USER_INITIATED' };
  }

  /** A `connect`: the user's offer of a user-initiated call, or the user's answer of a business-initiated one. */
  connect(call: Call, phone: PhoneNumber, sdpType: 'offer' | 'answer', sdp: string): Json {
    return this.value(phone, {
      contacts: [{ profile: { name: 'Test User' }, wa_id: call.from }],
      calls: [{ ...this.ends(call, phone), event: 'connect', timestamp: this.seconds(), session: { sdp_type: sdpType, sdp } }],
    });
  }

  /** A business-initiated call's progress: `RINGING`, `ACCEPTED` or `REJECTED` under `statuses`. */
  status(call: Call, phone: PhoneNumber, status: 'RINGING' | 'ACCEPTED' | 'REJECTED'): Json {
    return this.value(phone, { statuses: [{ id: call.id, type: 'call', status, timestamp: this.seconds(), recipient_id: call.from }] });
  }

  /** The call ended: `COMPLETED` with its times and duration when it was answered, else `FAILED` without them. */
  terminate(call: Call, phone: PhoneNumber, errors?: Json[]): Json {
    const now = this.state.now();
    const answered = call.acceptedAt !== undefined;
    const entry: Json = { ...this.ends(call, phone), event: 'terminate', timestamp: this.seconds(now), status: answered ? 'COMPLETED' : 'FAILED' };
    if (answered) {
      const start = Math.floor(call.acceptedAt! / 1000);
      const duration = Math.round((now - call.acceptedAt!) / 1000);
      entry.start_time = String(start);
      entry.end_time = String(start + duration);
      entry.duration = duration;
    }
    if (call.bizOpaque) entry.biz_opaque_callback_data = call.bizOpaque;
    return this.value(phone, { calls: [entry], ...(errors ? { errors } : {}) });
  }

  /** Sends a webhook after the current answer (the provider's come apart from its HTTP answers). */
  later(body: Json): void {
    setImmediate(() => void this.webhooks.send(body));
  }
}

const illegal = (call: Call, action: string) =>
  parameterValueInvalid(`Cannot ${action} call ${call.id}: it is ${call.state === 'ended' ? 'over' : call.state.replace('_', '-')}`);

/**
 * POST /{phone_number_id}/calls, `action` selects the operation (provider-2026.md §7.2–7.3), the call state machine:
 * a user-initiated call rings; `pre_accept` (optional) then `accept` with the same SDP answer, or `reject`; an
 * answered call ends with `terminate`. A business-initiated call (`connect`) needs the user's permission (138006)
 * and one call at a time with a user (138003). Each end sends the terminate webhook.
 */
export function registerCalls(router: Router, state: SimState, webhooks: WebhookSender): void {
  const hooks = new CallWebhooks(state, webhooks);
  router.post('/:phoneId/calls', async (ctx) => {
    const phone = phoneFor(ctx, state, ctx.params.phoneId);
    const b = jsonBody(ctx);
    if (b.messaging_product !== 'whatsapp') throw invalidParameter('messaging_product must be "whatsapp"');
    const action = oneOf(b.action, 'action', ['connect', 'pre_accept', 'accept', 'reject', 'terminate']);
    state.calling.requireEnabled(phone.id);
    if (b.biz_opaque_callback_data !== undefined) str(b.biz_opaque_callback_data, 'biz_opaque_callback_data', { max: 512 });
    if (action === 'connect') {
      if (b.to === undefined && b.recipient === undefined)
        throw new GraphError(400, 131008, '(#131008) Required parameter is missing', { details: 'to is required' });
      // a phone number as its digits; a business-scoped user id (provider-2026.md §2) as it is
      const user = b.to !== undefined ? normalize(str(b.to, 'to')!) : str(b.recipient, 'recipient')!;
      const session = obj(b.session, 'session');
      oneOf(session.sdp_type, 'session.sdp_type', ['offer']);
      str(session.sdp, 'session.sdp');
      state.calling.requirePermission(phone.id, user, state.now());
      const ongoing = [...state.calls.values()].some((c) => c.phoneId === phone.id && c.from === user && c.state !== 'ended');
      if (ongoing) throw new GraphError(400, 138003, '(#138003) Duplicate call', { details: `A call with ${user} is already ongoing` });
      const id = state.wacid();
      const call: Call = { id, phoneId: phone.id, from: user, state: 'ringing', direction: 'BUSINESS_INITIATED' };
      if (typeof b.biz_opaque_callback_data === 'string') call.bizOpaque = b.biz_opaque_callback_data;
      state.calls.set(id, call);
      ctx.body = { messaging_product: 'whatsapp', calls: [{ id }] };
      hooks.later(hooks.status(call, phone, 'RINGING'));
      return;
    }
    const callId = str(b.call_id, 'call_id')!;
    const call = state.calls.get(callId);
    if (!call || call.phoneId !== phone.id) throw new GraphError(400, 138001, '(#138001) Receiver is not valid', { details: `Unknown call_id ${callId}` });
    const business = call.direction === 'BUSINESS_INITIATED';
    if (action === 'pre_accept' || action === 'accept') {
      if (business) throw illegal(call, action.replace('_', '-'));
      const session = obj(b.session, 'session');
      oneOf(session.sdp_type, 'session.sdp_type', ['answer']);
      const sdp = str(session.sdp, 'session.sdp')!;
      if (call.state === 'accepted') throw new GraphError(400, 138003, '(#138003) Duplicate call', { details: `Call ${callId} is already accepted` });
      if (call.state === 'ended') throw illegal(call, action.replace('_', '-'));
      if (action === 'pre_accept' && call.state === 'pre_accepted') throw illegal(call, 'pre-accept');
      if (action === 'accept' && call.answerSdp !== undefined && call.answerSdp !== sdp)
        throw parameterValueInvalid('session.sdp must be the SDP answer the pre-accept sent');
      call.answerSdp = sdp;
      if (action === 'accept') {
        call.state = 'accepted';
        call.acceptedAt = state.now();
        if (typeof b.biz_opaque_callback_data === 'string') call.bizOpaque = b.biz_opaque_callback_data;
      } else call.state = 'pre_accepted';
      ctx.body = { messaging_product: 'whatsapp', success: true };
      return;
    }
    if (action === 'reject') {
      // only an unanswered user-initiated call is rejected; an answered one, or the business's own, is terminated
      if (business || call.state === 'accepted' || call.state === 'ended') throw illegal(call, 'reject');
    } else if (call.state === 'ended' || (!business && call.state === 'ringing')) throw illegal(call, 'terminate');
    call.state = 'ended';
    ctx.body = { messaging_product: 'whatsapp', success: true };
    hooks.later(hooks.terminate(call, phone));
  });

  /** GET/POST /{phone_number_id}/settings: the number's `calling` settings (provider-2026.md §7.1). */
  router.get('/:phoneId/settings', (ctx) => {
    const phone = phoneFor(ctx, state, ctx.params.phoneId);
    ctx.body = { calling: state.calling.settings(phone.id) };
  });
  router.post('/:phoneId/settings', (ctx) => {
    const phone = phoneFor(ctx, state, ctx.params.phoneId);
    const waba = state.wabas.get(phone.wabaId);
    state.calling.update(phone.id, jsonBody(ctx), (waba?.subscribedApps.size ?? 0) > 0);
    ctx.body = { success: true };
  });

  /** GET /{phone_number_id}/call_permissions?user_wa_id= (or recipient=): the user's permission (provider-2026.md §7.4). */
  router.get('/:phoneId/call_permissions', (ctx) => {
    const phone = phoneFor(ctx, state, ctx.params.phoneId);
    const user = typeof ctx.query.user_wa_id === 'string' ? ctx.query.user_wa_id : typeof ctx.query.recipient === 'string' ? ctx.query.recipient : undefined;
    if (!user) throw new GraphError(400, 131008, '(#131008) Required parameter is missing', { details: 'user_wa_id or recipient is required' });
    ctx.body = state.calling.permissionBody(phone.id, ctx.query.user_wa_id === user ? normalize(user) : user, state.now());
  });
}
