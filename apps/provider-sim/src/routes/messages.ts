import type { Context } from 'koa';
import type Router from '@koa/router';
import { GraphError, parameterValueInvalid } from '../errors';
import type { MessagingLimits } from '../messaging-limits';
import type { RateLimiter } from '../rate-limits';
import { normalize, type PhoneNumber, type SimState } from '../state';
import { expectedParams, paramMismatch } from '../templates/model';
import type { TemplateRegistry } from '../templates/registry';
import { validateMessage } from '../validate/message';
import { oneOf } from '../validate/checks';
import type { WebhookSender } from '../webhooks';
import { stoppedMarketing } from './campaign-control';
import { jsonBody, phoneFor } from './graph';

export interface MessagesDeps {
  state: SimState;
  limits: RateLimiter;
  /** The portfolio's daily unique-user limit (131049). */
  messagingLimits: MessagingLimits;
  webhooks: WebhookSender;
  autoStatuses: () => boolean;
  templates: TemplateRegistry;
}

type Json = Record<string, unknown>;

const windowClosed = (details: string) => ({
  code: 131047,
  title: 'Re-engagement message',
  message: 'Re-engagement message',
  error_data: { details },
  href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/',
});
const WINDOW_DETAILS = 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.';

/** A template send the registry refuses (132001, 132015, 132016, 132000), as the provider does. */
function checkTemplate(d: MessagesDeps, wabaId: string, b: Json, toBsuid = false): void {
  const t = (b.template ?? {}) as { name?: string; language?: { code?: string }; components?: unknown };
  const found = d.templates.find(wabaId, String(t.name), String(t.language?.code));
  if (!found || !['APPROVED', 'PAUSED', 'DISABLED', 'FLAGGED', 'REINSTATED'].includes(found.status)) {
    throw new GraphError(404, 132001, '(#132001) Template name does not exist in the translation', {
      details: `template name (${String(t.name)}) does not exist in ${String(t.language?.code)}${found ? ` (status ${found.status})` : ''}`,
    });
  }
  if (found.status === 'PAUSED')
    throw new GraphError(400, 132015, '(#132015) Template is paused', { details: `Template ${found.name} is paused due to low quality` });
  if (found.status === 'DISABLED')
    throw new GraphError(400, 132016, '(#132016) Template is disabled', { details: `Template ${found.name} has been disabled due to low quality` });
  // provider-2026.md §2.2: an authentication code needs the user's phone number
  if (toBsuid && found.category === 'AUTHENTICATION')
    throw new GraphError(400, 131062, '(#131062) BSUID recipients are not supported for this message', {
      details: 'Authentication templates cannot be sent to a business-scoped user id; send to the phone number',
    });
  const mismatch = paramMismatch(expectedParams(found), t.components);
  if (mismatch) throw new GraphError(400, 132000, '(#132000) Number of parameters does not match the expected number of params', { details: mismatch });
  // provider-2026.md §6.2: an authentication code is at most 15 characters
  const body = (Array.isArray(t.components) ? (t.components as Json[]) : []).find((c) => c.type === 'body');
  const code = (body?.parameters as Json[] | undefined)?.[0]?.text;
  if (found.category === 'AUTHENTICATION' && typeof code === 'string' && [...code].length > 15)
    throw new GraphError(400, 132008, '(#132008) Template parameter value invalid', { details: 'The verification code may be at most 15 characters' });
}

/** POST /{phone_number_id}/messages: sends (§1) and read receipts / typing indicators (§2). */
export function registerMessages(router: Router, d: MessagesDeps): void {
  /**
   * POST /{phone_number_id}/marketing_messages (provider-2026.md §3.1): a MARKETING template only (else 134100),
   * with `product_policy` and `message_activity_sharing`. Not onboarded: `STRICT` fails, `CLOUD_API_FALLBACK` (the
   * default) is delivered through the Cloud API (then priced `marketing`, not `marketing_lite`).
   */
  router.post('/:phoneId/marketing_messages', async (ctx) => {
    const phone = phoneFor(ctx, d.state, ctx.params.phoneId);
    const b = jsonBody(ctx);
    if (b.product_policy !== undefined) oneOf(b.product_policy, 'product_policy', ['CLOUD_API_FALLBACK', 'STRICT']);
    if (b.message_activity_sharing !== undefined && typeof b.message_activity_sharing !== 'boolean')
      throw new GraphError(400, 100, '(#100) Invalid parameter', { details: 'message_activity_sharing must be a boolean' });
    if (b.type !== 'template')
      throw new GraphError(400, 131055, '(#131055) Method not allowed', { details: 'Only template messages can be sent through this endpoint' });
    const t = (b.template ?? {}) as { name?: string; language?: { code?: string } };
    const found = d.templates.find(phone.wabaId, String(t.name), String(t.language?.code));
    if (found && found.category !== 'MARKETING')
      throw new GraphError(400, 134100, '(#134100) Template is not a marketing template', {
        details: `Template ${found.name} is ${found.category}; send it through /messages`,
      });
    const onboarded = d.state.mmOnboarded.has(phone.wabaId);
    if (!onboarded && b.product_policy === 'STRICT')
      throw new GraphError(400, 100, '(#100) Unsupported post request: the business account is not onboarded to the Marketing Messages API', {
        details: 'Accept the Marketing Messages API terms first',
      });
    const { product_policy: _policy, message_activity_sharing: _sharing, ...message } = b;
    await sendMessage(ctx, d, phone, message, { pricingCategory: onboarded ? 'marketing_lite' : 'marketing' });
  });

  router.post('/:phoneId/messages', async (ctx) => {
    const phone = phoneFor(ctx, d.state, ctx.params.phoneId);
    const b = jsonBody(ctx);
    if (b.status !== undefined) {
      // read receipt, optionally with a typing indicator
      if (b.messaging_product !== 'whatsapp') throw new GraphError(400, 100, '(#100) Invalid parameter', { details: 'messaging_product must be "whatsapp"' });
      oneOf(b.status, 'status', ['read']);
      const inbound = typeof b.message_id === 'string' ? d.state.inbound.get(b.message_id) : undefined;
      if (!inbound || inbound.phoneId !== phone.id)
        throw parameterValueInvalid(`message_id ${String(b.message_id)} is not a message received by this phone number`);
      if (b.typing_indicator !== undefined) {
        const t = b.typing_indicator as { type?: unknown };
        if (!t || typeof t !== 'object' || t.type !== 'text')
          throw new GraphError(400, 100, '(#100) Invalid parameter', { details: 'typing_indicator.type must be "text"' });
      }
      ctx.body = { success: true };
      return;
    }
    await sendMessage(ctx, d, phone, b, {});
  });
}

/** A message send (§1), to a phone number or a BSUID; `pricingCategory` set by the Marketing Messages API. */
async function sendMessage(ctx: Context, d: MessagesDeps, phone: PhoneNumber, b: Json, opts: { pricingCategory?: string }): Promise<void> {
  {
    if (!phone.registered)
      throw new GraphError(400, 133010, '(#133010) Account not registered', { details: 'The phone number is not registered on the Cloud API' });
    const type = validateMessage(b, {
      catalogId: d.state.wabas.get(phone.wabaId)?.catalogId ?? null,
      flow: (id) => {
        const f = d.state.flows.get(id);
        return f && f.wabaId === phone.wabaId ? f : undefined;
      },
      // uploaded by a number of the account, or received by one
      media: (id) => d.state.liveMedia(id)?.wabaId === phone.wabaId,
    });
    // the user: by phone (`to` wins when both are given), else by BSUID of this portfolio (provider-2026.md §2.2)
    const businessId = d.state.wabas.get(phone.wabaId)?.businessId ?? '';
    const toBsuid = b.to === undefined;
    const user = toBsuid ? d.state.users.ofId(businessId, String(b.recipient)) : d.state.users.ofPhone(businessId, String(b.to));
    if (!user) throw parameterValueInvalid(`recipient ${String(b.recipient)} is no user of this business portfolio`);
    // the user as the window and limits know them: the phone number, or the BSUID of a user whose number is withheld
    const to = toBsuid ? (user.phone ?? user.userId) : String(b.to);
    const until = d.state.maintenance.get(phone.id);
    if (until !== undefined && until > d.state.now()) {
      throw new GraphError(503, 131057, '(#131057) Business Account is in maintenance mode', {
        details: 'The business phone number is being upgraded; retry in about a minute',
      });
    }
    if (type === 'template' && d.templates.enforce) checkTemplate(d, phone.wabaId, b, toBsuid);
    // only templates may open a conversation: anything else needs the user to have written in the last 24 hours
    const outsideWindow = type !== 'template' && d.state.window !== 'off' && !d.state.messagedWithin24h(phone.id, to);
    if (outsideWindow && d.state.window === 'sync') {
      throw new GraphError(400, 131047, '(#131047) Re-engagement message', { details: WINDOW_DETAILS });
    }
    d.limits.check(phone.id, to);
    const permissionRequest = type === 'interactive.call_permission_request';
    if (permissionRequest) d.state.calling.checkRequest(phone.id, normalize(to), d.state.now());
    const id = d.state.wamid();
    if (permissionRequest) d.state.calling.recordRequest(phone.id, normalize(to), id, d.state.now());
    d.state.sent.set(id, {
      id,
      phoneId: phone.id,
      to: toBsuid ? (user.phone ?? '') : to,
      userId: user.userId,
      toBsuid,
      type,
      at: d.state.now(),
      voice: type === 'audio' && isVoice(d.state, b.audio),
      // per-message pricing (provider-2026.md §4.1): a template by its category, a free-form reply as `service`
      pricingCategory: opts.pricingCategory ?? pricingCategoryOf(d, phone.wabaId, type, b),
    });
    ctx.body = {
      messaging_product: 'whatsapp',
      // to a BSUID: the user id and no wa_id; to a phone (or both): the wa_id and no user id
      contacts: [toBsuid ? { input: String(b.recipient), user_id: user.userId } : { input: to, wa_id: to.replace(/^\+/, '') }],
      messages: [{ id, ...(type === 'template' ? { message_status: 'accepted' } : {}) }],
    };
    // a marketing template to a user who stopped the business's marketing messages fails with 131050 (user_preferences)
    const optedOut = type === 'template' && isMarketing(d, phone.wabaId, b) && stoppedMarketing(d.state, phone.wabaId, to);
    // a template to a user outside their service window counts against the portfolio's messaging limit: beyond it,
    // accepted and then failed with 131049 (provider-2026.md §5: no dedicated code; the failed status names 131049)
    const overLimit = type === 'template' && !optedOut && !d.state.messagedWithin24h(phone.id, to) && !d.messagingLimits.admit(businessId, user.userId);
    const failCode = optedOut ? 131050 : overLimit ? 131049 : d.state.undeliverable.get(normalize(to));
    const failure = outsideWindow ? [windowClosed(WINDOW_DETAILS)] : failCode !== undefined ? [failedError(failCode)] : undefined;
    if (failure) {
      // accepted, then reported failed (reference §1.2): the failure arrives only as a status webhook
      void (async () => {
        if (await d.webhooks.after(100)) await d.webhooks.send(d.webhooks.statusBody(phone, id, to, 'failed', failure, 'both', d.state.sent.get(id)));
      })();
      return;
    }
    if (d.autoStatuses()) {
      const statuses = autoStatuses(d.state, { type, to, voice: d.state.sent.get(id)!.voice });
      void (async () => {
        for (const [i, s] of statuses.entries()) {
          if (!(await d.webhooks.after(150 * (i + 1)))) return;
          await d.webhooks.send(d.webhooks.statusBody(phone, id, to, s, undefined, 'both', d.state.sent.get(id)));
        }
      })();
    }
  }
}

/** The pricing category of a send through /messages: the template's category (lower case), else `service`. */
function pricingCategoryOf(d: MessagesDeps, wabaId: string, type: string, b: Json): string {
  if (type !== 'template') return 'service';
  const t = (b.template ?? {}) as { name?: string; language?: { code?: string } };
  return d.templates.find(wabaId, String(t.name), String(t.language?.code))?.category.toLowerCase() ?? 'utility';
}

function isMarketing(d: MessagesDeps, wabaId: string, b: Json): boolean {
  const t = (b.template ?? {}) as { name?: string; language?: { code?: string } };
  return d.templates.find(wabaId, String(t.name), String(t.language?.code))?.category.toUpperCase() === 'MARKETING';
}

/** An OPUS audio (by the media's type, or a link's extension) is a voice message, which gets `played`. */
function isVoice(state: SimState, audio: unknown): boolean {
  const a = (audio ?? {}) as { id?: unknown; link?: unknown };
  if (typeof a.id === 'string') return state.liveMedia(a.id)?.mimeType === 'audio/ogg';
  return typeof a.link === 'string' && /\.(ogg|opus)$/i.test(a.link.split('?')[0]);
}

/**
 * What auto-statuses report for a message: a script for its recipient first (once), else sent → delivered →
 * read, with `delivered` skipped for every n-th message (delivered and read at once, reference §7.6) and
 * `played` after `read` for a voice message; a reaction only `sent`.
 */
export function autoStatuses(state: SimState, m: { type: string; to: string; voice: boolean }): string[] {
  const scripted = state.scriptedStatuses.get(normalize(m.to));
  if (scripted) {
    state.scriptedStatuses.delete(normalize(m.to));
    return scripted;
  }
  if (m.type === 'reaction') return ['sent'];
  state.autoStatusCount += 1;
  const every = state.statusPlan.skipDeliveredEvery;
  const skip = every > 0 && state.autoStatusCount % every === 0;
  return ['sent', ...(skip ? [] : ['delivered']), 'read', ...(m.voice && state.statusPlan.playedForVoice ? ['played'] : [])];
}

const FAILURE_TITLES: Record<number, string> = {
  131026: 'Message undeliverable',
  131049: 'This message was not delivered to maintain healthy ecosystem engagement.',
  131050: 'Unable to deliver the message. This recipient has chosen to stop receiving marketing messages.',
  131000: 'Something went wrong',
  130472: "User's number is part of an experiment",
};

function failedError(code: number): Json {
  const title = FAILURE_TITLES[code] ?? 'Message failed';
  return { code, title, message: title, error_data: { details: title }, href: 'https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes/' };
}
