import type Router from '@koa/router';
import type { RateLimiter } from '../rate-limits';
import { normalize, type SimState } from '../state';
import type { WebhookSender } from '../webhooks';
import { jsonBody } from './graph';

/**
 * Control of what bulk sending meets at the provider: a number's own throughput (130429), the send attempts as
 * they arrived, and users who stop or resume a business's marketing messages (`user_preferences`; 131050).
 */
export function registerCampaignControl(router: Router, state: SimState, webhooks: WebhookSender, limits: RateLimiter): void {
  /** `{per_second}`: the number's throughput; null: the simulator's. */
  router.put('/_sim/phone-numbers/:id/throughput', (ctx) => {
    const b = jsonBody(ctx);
    if (b.per_second === null) state.phoneThroughput.delete(ctx.params.id);
    else if (typeof b.per_second === 'number' && b.per_second > 0) state.phoneThroughput.set(ctx.params.id, b.per_second);
    else {
      ctx.status = 400;
      ctx.body = { error: 'per_second must be a positive number or null' };
      return;
    }
    limits.reset();
    ctx.body = { per_second: state.phoneThroughput.get(ctx.params.id) ?? null };
  });

  /** Every send attempt of the number that reached the throughput check, oldest first (`at`: ms). */
  router.get('/_sim/phone-numbers/:id/sends', (ctx) => {
    ctx.body = { sends: limits.arrivals.get(ctx.params.id) ?? [] };
  });

  /**
   * A user stops (`value: stop`) or resumes marketing messages of the number's business: the provider's
   * `user_preferences` webhook is sent, and marketing templates to a stopped user fail with 131050.
   */
  router.post('/_sim/inbound/user-preferences', async (ctx) => {
    const b = jsonBody(ctx);
    const phone = state.phones.get(String(b.phone_number_id));
    if (!phone || (b.value !== 'stop' && b.value !== 'resume') || typeof b.from !== 'string') {
      ctx.status = 400;
      ctx.body = { error: 'phone_number_id of a number, from and value (stop | resume) are required' };
      return;
    }
    const user = normalize(b.from);
    const key = `${phone.wabaId}:${user}`;
    if (b.value === 'stop') state.marketingOptOuts.add(key);
    else state.marketingOptOuts.delete(key);
    const value = webhooks.messagesValue(phone, {
      contacts: [{ profile: { name: 'Test User' }, wa_id: user }],
      user_preferences: [
        {
          wa_id: user,
          detail: b.value === 'stop' ? 'User requested to stop marketing messages' : 'User requested to resume marketing messages',
          category: 'marketing_messages',
          value: b.value,
          timestamp: Math.floor(state.now() / 1000),
        },
      ],
    });
    const res = await webhooks.send(webhooks.envelope(phone.wabaId, 'user_preferences', value));
    ctx.body = { status: res.status };
  });
}

/** Whether the user stopped the business's marketing messages. */
export const stoppedMarketing = (state: SimState, wabaId: string, to: string) => state.marketingOptOuts.has(`${wabaId}:${normalize(to)}`);
