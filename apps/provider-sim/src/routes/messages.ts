import type Router from '@koa/router';
import { GraphError, parameterValueInvalid } from '../errors';
import type { RateLimiter } from '../rate-limits';
import type { SimState } from '../state';
import { validateMessage } from '../validate/message';
import { oneOf } from '../validate/checks';
import type { WebhookSender } from '../webhooks';
import { jsonBody, phoneFor } from './graph';

export interface MessagesDeps {
  state: SimState;
  limits: RateLimiter;
  webhooks: WebhookSender;
  autoStatuses: () => boolean;
}

/** POST /{phone_number_id}/messages: sends (§1) and read receipts / typing indicators (§2). */
export function registerMessages(router: Router, d: MessagesDeps): void {
  router.post('/:phoneId/messages', async (ctx) => {
    const phone = phoneFor(ctx, d.state, ctx.params.phoneId);
    const b = jsonBody(ctx);
    if (b.status !== undefined) {
      // read receipt, optionally with a typing indicator
      if (b.messaging_product !== 'whatsapp') throw new GraphError(400, 100, '(#100) Invalid parameter', { details: 'messaging_product must be "whatsapp"' });
      oneOf(b.status, 'status', ['read']);
      const inbound = typeof b.message_id === 'string' ? d.state.inbound.get(b.message_id) : undefined;
      if (!inbound || inbound.phoneId !== phone.id) throw parameterValueInvalid(`message_id ${String(b.message_id)} is not a message received by this phone number`);
      if (b.typing_indicator !== undefined) {
        const t = b.typing_indicator as { type?: unknown };
        if (!t || typeof t !== 'object' || t.type !== 'text') throw new GraphError(400, 100, '(#100) Invalid parameter', { details: 'typing_indicator.type must be "text"' });
      }
      ctx.body = { success: true };
      return;
    }
    if (!phone.registered) throw new GraphError(400, 133010, '(#133010) Account not registered', { details: 'The phone number is not registered on the Cloud API' });
    const type = validateMessage(b, {
      catalogId: d.state.wabas.get(phone.wabaId)?.catalogId ?? null,
      flow: (id) => {
        const f = d.state.flows.get(id);
        return f && f.wabaId === phone.wabaId ? f : undefined;
      },
    });
    const to = String(b.to);
    d.limits.check(phone.id, to);
    const id = d.state.wamid();
    d.state.sent.set(id, { id, phoneId: phone.id, to, type, at: Date.now() });
    ctx.body = {
      messaging_product: 'whatsapp',
      contacts: [{ input: to, wa_id: to.replace(/^\+/, '') }],
      messages: [{ id, ...(type === 'template' ? { message_status: 'accepted' } : {}) }],
    };
    if (d.autoStatuses()) {
      const statuses = type === 'reaction' ? ['sent'] : ['sent', 'delivered', 'read'];
      void (async () => {
        for (const [i, s] of statuses.entries()) {
          await new Promise((r) => setTimeout(r, 150 * (i + 1)));
          await d.webhooks.send(d.webhooks.statusBody(phone, id, to, s));
        }
      })();
    }
  });
}
