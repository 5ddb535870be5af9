import type Router from '@koa/router';
import { GraphError, parameterValueInvalid } from '../errors';
import type { RateLimiter } from '../rate-limits';
import { normalize, type SimState } from '../state';
import { expectedParams, paramMismatch } from '../templates/model';
import type { TemplateRegistry } from '../templates/registry';
import { validateMessage } from '../validate/message';
import { oneOf } from '../validate/checks';
import type { WebhookSender } from '../webhooks';
import { jsonBody, phoneFor } from './graph';

export interface MessagesDeps {
  state: SimState;
  limits: RateLimiter;
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
function checkTemplate(d: MessagesDeps, wabaId: string, b: Json): void {
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
    const to = String(b.to);
    const until = d.state.maintenance.get(phone.id);
    if (until !== undefined && until > d.state.now()) {
      throw new GraphError(503, 131057, '(#131057) Business Account is in maintenance mode', {
        details: 'The business phone number is being upgraded; retry in about a minute',
      });
    }
    if (type === 'template' && d.templates.enforce) checkTemplate(d, phone.wabaId, b);
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
    d.state.sent.set(id, { id, phoneId: phone.id, to, type, at: d.state.now(), voice: type === 'audio' && isVoice(d.state, b.audio) });
    ctx.body = {
      messaging_product: 'whatsapp',
      contacts: [{ input: to, wa_id: to.replace(/^\+/, '') }],
      messages: [{ id, ...(type === 'template' ? { message_status: 'accepted' } : {}) }],
    };
    const failCode = d.state.undeliverable.get(normalize(to));
    const failure = outsideWindow ? [windowClosed(WINDOW_DETAILS)] : failCode !== undefined ? [failedError(failCode)] : undefined;
    if (failure) {
      // accepted, then reported failed (reference §1.2): the failure arrives only as a status webhook
      void (async () => {
        await new Promise((r) => setTimeout(r, 100));
        await d.webhooks.send(d.webhooks.statusBody(phone, id, to, 'failed', failure));
      })();
      return;
    }
    if (d.autoStatuses()) {
      const statuses = autoStatuses(d.state, { type, to, voice: d.state.sent.get(id)!.voice });
      void (async () => {
        for (const [i, s] of statuses.entries()) {
          await new Promise((r) => setTimeout(r, 150 * (i + 1)));
          await d.webhooks.send(d.webhooks.statusBody(phone, id, to, s));
        }
      })();
    }
  });
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
