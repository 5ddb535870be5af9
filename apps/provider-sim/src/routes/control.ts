import type { Context } from 'koa';
import type Router from '@koa/router';
import type { RateLimiter } from '../rate-limits';
import { normalize, type Fault, type SimState } from '../state';
import { contactOf } from '../users';
import type { WebhookSender } from '../webhooks';
import { jsonBody } from './graph';
import { isAnimatedWebp, storeMedia } from './media';
import { SAMPLE_MEDIA } from './sample-media';

type Json = Record<string, unknown>;

/** The simulator's own control API under /_sim (tests and `npm start`; not part of the provider). */
export function registerControl(router: Router, state: SimState, webhooks: WebhookSender, limits: RateLimiter): void {
  router.get('/_sim/health', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.post('/_sim/phone-numbers', (ctx) => {
    const b = jsonBody(ctx);
    const waba = state.createWaba({
      id: b.waba_id as string | undefined,
      businessId: b.business_id as string | undefined,
      withCatalog: b.with_catalog === true,
      catalogId: typeof b.catalog_id === 'string' ? b.catalog_id : undefined,
    });
    const phone = state.createPhone(waba, {
      id: b.phone_number_id as string | undefined,
      display: b.display_phone_number as string | undefined,
      registered: b.registered !== false,
    });
    ctx.body = {
      phone_number_id: phone.id,
      waba_id: waba.id,
      business_id: waba.businessId,
      display_phone_number: phone.display,
      access_token: state.issueToken(waba.id),
      catalog_id: waba.catalogId,
    };
  });

  router.get('/_sim/requests', (ctx) => {
    const method = typeof ctx.query.method === 'string' ? ctx.query.method.toUpperCase() : undefined;
    const part = typeof ctx.query.path_contains === 'string' ? ctx.query.path_contains : undefined;
    // how many older requests the log let go: a caller counting requests knows when its count is short
    ctx.set('X-Sim-Requests-Dropped', String(state.requestsDropped));
    ctx.body = state.requests.filter((r) => (!method || r.method === method) && (!part || r.path.includes(part)));
  });
  router.delete('/_sim/requests', (ctx) => {
    state.requests.length = 0;
    state.requestsDropped = 0;
    ctx.status = 204;
  });

  router.put('/_sim/webhook', (ctx) => {
    const url = jsonBody(ctx).url;
    state.webhookUrl = typeof url === 'string' && url ? url : undefined;
    ctx.body = { url: state.webhookUrl ?? null };
  });

  /**
   * Status webhooks of a sent message, in the order given (any order, `delivered` skipped, `played`...); a
   * `failed` one carries `errors` (default 131026) on the status and in the value (`error_level` picks one).
   */
  router.post('/_sim/messages/:wamid/statuses', async (ctx) => {
    const sent = state.sent.get(ctx.params.wamid);
    if (!sent) {
      ctx.status = 404;
      ctx.body = { error: 'unknown message' };
      return;
    }
    const phone = state.phones.get(sent.phoneId)!;
    const b = jsonBody(ctx);
    const statuses = Array.isArray(b.statuses) ? (b.statuses as string[]) : ['sent', 'delivered', 'read'];
    const level = b.error_level === 'status' || b.error_level === 'value' ? b.error_level : 'both';
    const bodies: Array<{ status: number | null; body: Json }> = [];
    for (const s of statuses) {
      const body = webhooks.statusBody(
        phone,
        sent.id,
        sent.to,
        s,
        s === 'failed'
          ? ((b.errors as unknown[]) ?? [
              { code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', error_data: { details: 'Message Undeliverable.' } },
            ])
          : undefined,
        level,
        sent,
      );
      const res = await webhooks.send(body);
      bodies.push({ status: res.status, body: JSON.parse(res.body) as Json });
    }
    ctx.body = { sent: bodies };
  });

  /** Auto-statuses' plan: every n-th message skips `delivered` (0: none do), voice messages get `played`. */
  router.put('/_sim/status-plan', (ctx) => {
    const b = jsonBody(ctx);
    const plan = state.statusPlan;
    if (typeof b.skip_delivered_every === 'number' && Number.isInteger(b.skip_delivered_every) && b.skip_delivered_every >= 0)
      plan.skipDeliveredEvery = b.skip_delivered_every;
    if (typeof b.played_for_voice === 'boolean') plan.playedForVoice = b.played_for_voice;
    if (b.reset_count === true) state.autoStatusCount = 0;
    ctx.body = { skip_delivered_every: plan.skipDeliveredEvery, played_for_voice: plan.playedForVoice, count: state.autoStatusCount };
  });

  /** The statuses auto-statuses report for the next message to `to` (once), whatever the plan says. */
  router.put('/_sim/status-script', (ctx) => {
    const b = jsonBody(ctx);
    const statuses = Array.isArray(b.statuses) ? b.statuses.filter((s): s is string => typeof s === 'string') : [];
    if (typeof b.to !== 'string' || !statuses.length) {
      ctx.status = 400;
      ctx.body = { error: 'to and statuses are required' };
      return;
    }
    state.scriptedStatuses.set(normalize(b.to), statuses);
    ctx.body = { to: normalize(b.to), statuses };
  });

  /** The business number an inbound update is for and the user it comes from; a 404 when the number is unknown. */
  const inboundSender = (ctx: Context, b: Json) => {
    const phone = state.phones.get(String(b.phone_number_id));
    if (!phone) {
      ctx.status = 404;
      ctx.body = { error: 'unknown phone_number_id' };
      return undefined;
    }
    return { phone, from: String(b.from ?? '16505551234').replace(/^\+/, '') };
  };

  /**
   * The user an inbound message comes from (provider-2026.md §2.3): `user_id` names one made by `POST /_sim/users`
   * (a username adopter has no `from`), else the user of the `from` phone number. The message and its contact
   * carry the BSUID (and the parent BSUID, username) as the provider's do since April 2026.
   */
  const inboundUser = (ctx: Context, b: Json) => {
    const sender = inboundSender(ctx, b);
    if (!sender) return undefined;
    const businessId = state.wabas.get(sender.phone.wabaId)?.businessId ?? '';
    const user = typeof b.user_id === 'string' ? state.users.ofId(businessId, b.user_id) : state.users.ofPhone(businessId, sender.from);
    if (!user) {
      ctx.status = 404;
      ctx.body = { error: 'unknown user_id' };
      return undefined;
    }
    const from = typeof b.user_id === 'string' ? user.phone : sender.from;
    const ids: Json = { ...(from ? { from } : {}), from_user_id: user.userId, ...(user.parentUserId ? { from_parent_user_id: user.parentUserId } : {}) };
    const record = (wamid: string) => {
      state.recordInbound(sender.phone.id, from ?? user.userId, wamid);
      state.recordInboundUser(sender.phone.id, user.userId);
    };
    return { phone: sender.phone, user, ids, contact: contactOf(user, String(b.name ?? 'Test User')), record };
  };

  /** A WhatsApp user of a number's portfolio (provider-2026.md §2): `phone` null (or absent) makes a username-only user. */
  router.post('/_sim/users', (ctx) => {
    const b = jsonBody(ctx);
    const phone = state.phones.get(String(b.phone_number_id));
    if (!phone) {
      ctx.status = 404;
      ctx.body = { error: 'unknown phone_number_id' };
      return;
    }
    const businessId = state.wabas.get(phone.wabaId)?.businessId ?? '';
    const u = state.users.create(businessId, {
      phone: typeof b.phone === 'string' ? b.phone : null,
      username: typeof b.username === 'string' ? b.username : null,
      parent: b.parent === true,
    });
    ctx.status = 201;
    ctx.body = { user_id: u.userId, parent_user_id: u.parentUserId, username: u.username, wa_id: u.phone };
  });

  router.post('/_sim/inbound/message', async (ctx) => {
    const b = jsonBody(ctx);
    const sender = inboundUser(ctx, b);
    if (!sender) return;
    const { phone, ids, contact } = sender;
    const type = String(b.type ?? 'text');
    const wamid = state.wamid();
    const content = (b[type] as Json | undefined) ?? (type === 'text' ? { body: String(b.text ?? 'Hello') } : {});
    const message: Json = { ...ids, id: wamid, timestamp: String(Math.floor(state.now() / 1000)), type, [type]: content };
    if (b.context) message.context = b.context;
    sender.record(wamid);
    const body = webhooks.envelope(phone.wabaId, 'messages', webhooks.messagesValue(phone, { contacts: [contact], messages: [message] }));
    const res = await webhooks.send(body);
    ctx.body = { wamid, status: res.status, body: JSON.parse(res.body) as Json };
  });

  /**
   * A customer sends a media message (image, document, audio, video, sticker): the bytes (`content_base64`, or a
   * small real sample of the type) become a media of the number, downloadable through its id like the provider's
   * (`media_id` names it, for a test that must know it beforehand).
   */
  router.post('/_sim/inbound/media', async (ctx) => {
    const b = jsonBody(ctx);
    const sender = inboundUser(ctx, b);
    if (!sender) return;
    const { phone, ids, contact } = sender;
    const type = String(b.type ?? 'image');
    const sample = SAMPLE_MEDIA[type];
    if (!sample) {
      ctx.status = 400;
      ctx.body = { error: `type must be one of ${Object.keys(SAMPLE_MEDIA).join(', ')}` };
      return;
    }
    const bytes = typeof b.content_base64 === 'string' ? Buffer.from(b.content_base64, 'base64') : sample.bytes;
    const mimeType = typeof b.mime_type === 'string' ? b.mime_type : sample.mimeType;
    const media = storeMedia(state, phone.id, bytes, mimeType, 'received', typeof b.media_id === 'string' ? b.media_id : undefined);
    const content: Json = { id: media.id, mime_type: mimeType, sha256: media.sha256 };
    if (typeof b.caption === 'string' && ['image', 'video', 'document'].includes(type)) content.caption = b.caption;
    if (type === 'document') content.filename = typeof b.filename === 'string' ? b.filename : 'document.pdf';
    if (type === 'audio') content.voice = b.voice === true;
    if (type === 'sticker') content.animated = isAnimatedWebp(bytes);
    const wamid = state.wamid();
    const message: Json = { ...ids, id: wamid, timestamp: String(Math.floor(state.now() / 1000)), type, [type]: content };
    sender.record(wamid);
    const body = webhooks.envelope(phone.wabaId, 'messages', webhooks.messagesValue(phone, { contacts: [contact], messages: [message] }));
    const res = await webhooks.send(body);
    ctx.body = { wamid, media_id: media.id, sha256: media.sha256, status: res.status, body: JSON.parse(res.body) as Json };
  });

  router.post('/_sim/inbound/template-status', async (ctx) => {
    const b = jsonBody(ctx);
    const value: Json = {
      event: String(b.event ?? 'APPROVED'),
      message_template_id: Number(b.template_id ?? 1689556908129832),
      message_template_name: String(b.template_name ?? 'order_confirmation'),
      message_template_language: String(b.language ?? 'en_US'),
      reason: b.reason === undefined ? 'NONE' : b.reason,
      message_template_category: String(b.category ?? 'UTILITY'),
    };
    const body = webhooks.envelope(String(b.waba_id), 'message_template_status_update', value, Math.floor(state.now() / 1000));
    const res = await webhooks.send(body);
    ctx.body = { status: res.status, body: JSON.parse(res.body) as Json };
  });

  router.post('/_sim/inbound/raw', async (ctx) => {
    const b = jsonBody(ctx).body;
    const res = await webhooks.send(typeof b === 'string' ? b : (b as Json));
    ctx.body = { status: res.status, body: res.body };
  });

  router.put('/_sim/rate-limits', (ctx) => {
    const b = jsonBody(ctx);
    if (b.throughput_per_second !== undefined)
      state.rateLimits.throughputPerSecond = typeof b.throughput_per_second === 'number' ? b.throughput_per_second : null;
    if (b.pair_rate !== undefined) state.rateLimits.pairRate = b.pair_rate === true;
    limits.reset();
    ctx.body = { throughput_per_second: state.rateLimits.throughputPerSecond, pair_rate: state.rateLimits.pairRate };
  });

  router.post('/_sim/faults', (ctx) => {
    const b = jsonBody(ctx) as Partial<Fault> & { times?: number };
    if (!b.match || typeof b.match.path_contains !== 'string') {
      ctx.status = 400;
      ctx.body = { error: 'match.path_contains is required' };
      return;
    }
    state.faults.push({ match: b.match, remaining: b.times ?? 1, status: b.status, error: b.error, delay_ms: b.delay_ms, drop: b.drop });
    ctx.status = 201;
    ctx.body = { faults: state.faults.length };
  });
  router.delete('/_sim/faults', (ctx) => {
    state.faults = [];
    ctx.status = 204;
  });
}
