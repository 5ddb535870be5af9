import type Router from '@koa/router';
import { MESSAGING_LIMIT_TIERS, type MessagingLimits } from '../messaging-limits';
import type { RateLimiter } from '../rate-limits';
import { normalize, type SimState } from '../state';
import type { WebhookSender } from '../webhooks';
import { jsonBody } from './graph';

/**
 * Control of what bulk sending meets at the provider: a number's own throughput (130429), the send attempts as
 * they arrived, and users who stop or resume a business's marketing messages (`user_preferences`; 131050).
 */
export function registerCampaignControl(router: Router, state: SimState, webhooks: WebhookSender, limits: RateLimiter, messagingLimits: MessagingLimits): void {
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

  /**
   * The messaging limit of the number's business portfolio (every number of it shares it): `{tier}` one of the
   * provider's tiers (`TIER_250`… `TIER_UNLIMITED`, the old `TIER_50`, `TIER_1K`) or `{unique_users}` a test-sized
   * limit. Unless `notify` is false the provider's `business_capability_update` webhook announces it
   * (`max_daily_conversations_per_business`, -1 for unlimited). Answers the limit and the users counted now.
   */
  router.put('/_sim/phone-numbers/:id/messaging-limit', async (ctx) => {
    const b = jsonBody(ctx);
    const phone = state.phones.get(ctx.params.id);
    const businessId = phone ? state.wabas.get(phone.wabaId)?.businessId : undefined;
    const tier = typeof b.tier === 'string' ? b.tier : undefined;
    const limit =
      tier !== undefined && tier in MESSAGING_LIMIT_TIERS
        ? MESSAGING_LIMIT_TIERS[tier]
        : typeof b.unique_users === 'number' && Number.isSafeInteger(b.unique_users) && b.unique_users > 0
          ? b.unique_users
          : undefined;
    if (!phone || !businessId || limit === undefined) {
      ctx.status = 400;
      ctx.body = { error: `a number of the simulator, and tier (${Object.keys(MESSAGING_LIMIT_TIERS).join(', ')}) or unique_users (a positive integer)` };
      return;
    }
    messagingLimits.set(businessId, limit);
    if (b.notify !== false) {
      const value = { max_daily_conversations_per_business: limit ?? -1, max_phone_numbers_per_business: 2, max_phone_numbers_per_waba: 2 };
      await webhooks.send(webhooks.envelope(phone.wabaId, 'business_capability_update', value));
    }
    ctx.body = { business_id: businessId, unique_users: limit, used: messagingLimits.used(businessId) };
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
    // a phone number, or the BSUID of a user whose number the business does not see (provider-2026.md §2)
    const bsuid = /^[A-Z]{2}\./.test(b.from);
    const user = bsuid ? b.from : normalize(b.from);
    const key = `${phone.wabaId}:${normalize(user)}`;
    const id = bsuid ? { user_id: user } : { wa_id: user };
    if (b.value === 'stop') state.marketingOptOuts.add(key);
    else state.marketingOptOuts.delete(key);
    const value = webhooks.messagesValue(phone, {
      contacts: [{ profile: { name: 'Test User' }, ...id }],
      user_preferences: [
        {
          ...id,
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
