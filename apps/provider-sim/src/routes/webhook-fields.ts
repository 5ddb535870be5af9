import type Router from '@koa/router';
import type { PhoneNumber, SimState } from '../state';
import { contactOf, type SimUser } from '../users';
import type { WebhookSender } from '../webhooks';
import { jsonBody } from './graph';

type Json = Record<string, unknown>;

/**
 * The `value` of each webhook field of 2026 (provider-2026.md §2–§8), as the provider sends it for a number of the
 * simulator: `messages`-style fields carry `metadata`, account and template fields none (they route by the entry's
 * business account), `messaging_handovers` names the number in `recipient`.
 */
const FIELDS: Record<string, (c: { phone: PhoneNumber; user: SimUser; state: SimState; ts: string; wamid: string }) => Json> = {
  messages: ({ phone, user, ts, wamid }) => ({
    ...meta(phone),
    messages: [
      {
        ...(user.phone ? { from: user.phone } : {}),
        id: wamid,
        timestamp: ts,
        type: 'system',
        system: { body: `User changed from ${user.userId} to US.222`, user_id: 'US.222', type: 'user_changed_user_id' },
      },
    ],
  }),
  message_template_status_update: () => ({
    event: 'APPROVED',
    message_template_id: 1689556908129832,
    message_template_name: 'order_confirmation',
    message_template_language: 'en_US',
    reason: 'NONE',
    message_template_category: 'UTILITY',
  }),
  message_template_quality_update: () => ({
    previous_quality_score: 'GREEN',
    new_quality_score: 'YELLOW',
    message_template_id: 806312974732579,
    message_template_name: 'welcome',
    message_template_language: 'en_US',
  }),
  template_category_update: () => ({
    message_template_id: 12345678,
    message_template_name: 'order_ready',
    message_template_language: 'en_US',
    previous_category: 'UTILITY',
    new_category: 'MARKETING',
  }),
  account_update: ({ phone, state }) => ({
    event: 'ACCOUNT_RESTRICTION',
    waba_info: { waba_id: phone.wabaId, owner_business_id: state.wabas.get(phone.wabaId)?.businessId ?? '' },
    restriction_info: [{ restriction_type: 'RESTRICTED_BIZ_INITIATED_MESSAGING', expiration: 1760000000 }],
  }),
  account_alerts: ({ phone }) => ({
    entity_type: 'PHONE_NUMBER',
    entity_id: phone.id,
    alert_info: {
      alert_severity: 'WARNING',
      alert_status: 'ACTIVE',
      alert_type: 'INCREASED_CAPABILITIES_ELIGIBILITY_DEFERRED',
      alert_description: 'Your request to increase messaging limits was deferred',
    },
  }),
  phone_number_quality_update: ({ phone }) => ({
    display_phone_number: phone.display,
    event: 'UPGRADE',
    old_limit: 'TIER_250',
    max_daily_conversations_per_business: '2000',
  }),
  business_capability_update: () => ({ max_daily_conversations_per_business: 10000, max_phone_numbers_per_business: 2, max_phone_numbers_per_waba: 2 }),
  user_preferences: ({ phone, user }) => ({
    ...meta(phone),
    contacts: [contactOf(user, 'Test User')],
    user_preferences: [
      {
        ...(user.phone ? { wa_id: user.phone } : {}),
        user_id: user.userId,
        detail: 'User requested to stop marketing messages',
        category: 'marketing_messages',
        value: 'stop',
        timestamp: 1731705721,
      },
    ],
  }),
  standby: ({ phone, user, ts, wamid }) => ({
    ...meta(phone),
    contacts: [contactOf(user, 'Test User')],
    messages: [
      { ...(user.phone ? { from: user.phone } : {}), from_user_id: user.userId, id: wamid, timestamp: ts, type: 'text', text: { body: 'Is it in stock?' } },
    ],
  }),
  messaging_handovers: ({ phone, user, ts }) => ({
    messaging_product: 'whatsapp',
    recipient: { display_phone_number: phone.display, phone_number_id: phone.id },
    sender: { phone_number: user.phone ?? '' },
    timestamp: ts,
    type: 'control_passed',
    control_passed: { previous_owner_role: 'ai_agent', new_owner_role: 'escalation', metadata: 'wants a human' },
  }),
  smb_message_echoes: ({ phone, user, ts, wamid }) => ({
    ...meta(phone),
    contacts: [{ ...(user.phone ? { wa_id: user.phone } : {}), user_id: user.userId }],
    message_echoes: [
      {
        from: phone.display,
        ...(user.phone ? { to: user.phone } : {}),
        to_user_id: user.userId,
        id: wamid,
        timestamp: ts,
        type: 'text',
        text: { body: 'On my way' },
      },
    ],
  }),
  history: ({ phone, user, ts, wamid }) => ({
    ...meta(phone),
    history: [
      {
        metadata: { phase: 0, chunk_order: 1, progress: 40 },
        threads: [
          {
            id: user.phone ?? user.userId,
            context: { user_id: user.userId },
            messages: [
              {
                ...(user.phone ? { from: user.phone } : {}),
                from_user_id: user.userId,
                id: wamid,
                timestamp: ts,
                type: 'text',
                text: { body: 'Earlier message' },
                history_context: { status: 'READ' },
              },
            ],
          },
        ],
      },
    ],
  }),
  calls: ({ phone, user, ts }) => ({
    ...meta(phone),
    contacts: [contactOf(user, 'Test User')],
    calls: [
      {
        id: 'wacid.HBgLMTY1MDU1NTEyMzQVAgARGBI',
        ...(user.phone ? { from: user.phone } : {}),
        from_user_id: user.userId,
        to: phone.display,
        event: 'terminate',
        direction: 'USER_INITIATED',
        timestamp: ts,
        status: 'FAILED',
      },
    ],
  }),
};

/** The webhook fields the simulator sends on request (`POST /_sim/webhooks/{field}`). */
export const WEBHOOK_FIELDS = Object.keys(FIELDS);

function meta(phone: PhoneNumber): Json {
  return { messaging_product: 'whatsapp', metadata: { display_phone_number: phone.display, phone_number_id: phone.id } };
}

/**
 * Control routes for the webhook fields of 2026: `POST /_sim/webhooks/{field}` sends one change of that field for
 * a number (`phone_number_id`; the user is `user_id`'s or the `from` phone's), its value the provider's example
 * (`value` replaces it, `merge` overrides its top-level keys); `POST /_sim/marketing-messages/onboard` makes a
 * business account accept the Marketing Messages API terms, announced by `account_update` `MM_LITE_TERMS_SIGNED`.
 */
export function registerWebhookFields(router: Router, state: SimState, webhooks: WebhookSender): void {
  router.post('/_sim/webhooks/:field', async (ctx) => {
    const b = jsonBody(ctx);
    const make = Object.hasOwn(FIELDS, ctx.params.field) ? FIELDS[ctx.params.field] : undefined;
    const phone = state.phones.get(String(b.phone_number_id));
    if (!make || !phone) {
      ctx.status = 404;
      ctx.body = { error: make ? 'unknown phone_number_id' : `unknown field; one of ${WEBHOOK_FIELDS.join(', ')}` };
      return;
    }
    const businessId = state.wabas.get(phone.wabaId)?.businessId ?? '';
    const user =
      (typeof b.user_id === 'string' ? state.users.ofId(businessId, b.user_id) : undefined) ??
      state.users.ofPhone(businessId, typeof b.from === 'string' ? b.from : '16505551234');
    const value =
      b.value && typeof b.value === 'object'
        ? (b.value as Json)
        : { ...make({ phone, user, state, ts: String(Math.floor(state.now() / 1000)), wamid: state.wamid() }), ...((b.merge as Json | undefined) ?? {}) };
    const res = await webhooks.send(webhooks.envelope(phone.wabaId, ctx.params.field, value, Math.floor(state.now() / 1000)));
    ctx.body = { status: res.status, body: res.body };
  });

  router.post('/_sim/marketing-messages/onboard', async (ctx) => {
    const b = jsonBody(ctx);
    const waba = state.wabas.get(String(b.waba_id));
    if (!waba) {
      ctx.status = 404;
      ctx.body = { error: 'unknown waba_id' };
      return;
    }
    state.mmOnboarded.add(waba.id);
    const value = { event: 'MM_LITE_TERMS_SIGNED', waba_info: { waba_id: waba.id, owner_business_id: waba.businessId } };
    const res = await webhooks.send(webhooks.envelope(waba.id, 'account_update', value, Math.floor(state.now() / 1000)));
    ctx.body = { status: res.status, body: res.body };
  });
}
