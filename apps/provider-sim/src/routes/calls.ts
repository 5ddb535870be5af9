import type Router from '@koa/router';
import { GraphError, invalidParameter } from '../errors';
import type { SimState } from '../state';
import { obj, oneOf, str } from '../validate/checks';
import { jsonBody, phoneFor } from './graph';

/** POST /{phone_number_id}/calls, `action` selects the operation (§4). */
export function registerCalls(router: Router, state: SimState): void {
  router.post('/:phoneId/calls', async (ctx) => {
    const phone = phoneFor(ctx, state, ctx.params.phoneId);
    const b = jsonBody(ctx);
    if (b.messaging_product !== 'whatsapp') throw invalidParameter('messaging_product must be "whatsapp"');
    const action = oneOf(b.action, 'action', ['connect', 'pre_accept', 'accept', 'reject', 'terminate']);
    if (action === 'connect') {
      str(b.to, 'to');
      const session = obj(b.session, 'session');
      oneOf(session.sdp_type, 'session.sdp_type', ['offer']);
      str(session.sdp, 'session.sdp');
      const id = state.wacid();
      state.calls.set(id, { id, phoneId: phone.id, from: String(b.to), state: 'ringing' });
      ctx.body = { messaging_product: 'whatsapp', calls: [{ id }] };
      return;
    }
    const callId = str(b.call_id, 'call_id')!;
    const call = state.calls.get(callId);
    if (!call || call.phoneId !== phone.id) throw new GraphError(400, 138001, '(#138001) Receiver is not valid', { details: `Unknown call_id ${callId}` });
    if (action === 'pre_accept' || action === 'accept') {
      const session = obj(b.session, 'session');
      oneOf(session.sdp_type, 'session.sdp_type', ['answer']);
      str(session.sdp, 'session.sdp');
      if (call.state === 'ended' || call.state === 'accepted')
        throw new GraphError(400, 138003, '(#138003) Duplicate call', { details: `Call ${callId} is ${call.state}` });
      call.state = action === 'accept' ? 'accepted' : 'pre_accepted';
      ctx.body = { messaging_product: 'whatsapp', success: true };
      return;
    }
    if (call.state === 'ended') throw new GraphError(400, 138004, '(#138004) Connection error', { details: `Call ${callId} has ended` });
    call.state = 'ended';
    ctx.body = action === 'terminate' ? { success: true } : { messaging_product: 'whatsapp', success: true };
  });
}
