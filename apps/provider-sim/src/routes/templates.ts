import type { Context, Next } from 'koa';
import type Router from '@koa/router';
import { GraphError, unknownObject } from '../errors';
import type { SimState } from '../state';
import { TEMPLATE_STATUSES, type SimTemplate } from '../templates/model';
import type { TemplateRegistry } from '../templates/registry';
import { templateError, validateNewTemplate } from '../templates/validate';
import { oneOf } from '../validate/checks';
import { bearer, jsonBody, wabaFor } from './graph';

type Json = Record<string, unknown>;

const present = (t: SimTemplate): Json => ({
  id: t.id,
  name: t.name,
  language: t.language,
  status: t.status,
  category: t.category,
  parameter_format: t.parameterFormat,
  ...(t.messageSendTtlSeconds === null ? {} : { message_send_ttl_seconds: t.messageSendTtlSeconds }),
  components: t.category === 'AUTHENTICATION' ? authenticationComponents(t.components) : t.components,
  quality_score: { score: t.quality },
  ...(t.rejectedReason ? { rejected_reason: t.rejectedReason } : { rejected_reason: 'NONE' }),
});

/**
 * An authentication template as the provider shows it once created (provider-2026.md §6.2): its own body and
 * footer texts, and the OTP button as a URL button ending in the code's variable, which sends fill.
 */
function authenticationComponents(components: Json[]): Json[] {
  const minutes = components.find((c) => c.type === 'FOOTER')?.code_expiration_minutes;
  return components.map((c) => {
    if (c.type === 'BODY')
      return {
        type: 'BODY',
        text: `*{{1}}* is your verification code.${c.add_security_recommendation === true ? ' For your security, do not share this code.' : ''}`,
        ...(c.add_security_recommendation === undefined ? {} : { add_security_recommendation: c.add_security_recommendation }),
      };
    if (c.type === 'FOOTER') return { type: 'FOOTER', text: `This code expires in ${String(minutes)} minutes.`, code_expiration_minutes: minutes };
    if (c.type !== 'BUTTONS') return c;
    return {
      type: 'BUTTONS',
      buttons: (c.buttons as Json[]).map((b) => {
        const otp = String(b.otp_type).toUpperCase();
        const url = `https://www.whatsapp.com/otp/code/?otp_type=${otp}${minutes === undefined ? '' : `&code_expiration_minutes=${String(minutes)}`}&code=otp`;
        return { type: 'URL', text: typeof b.text === 'string' ? b.text : 'Copy code', url: `${url}{{1}}`, example: [`${url}123456`] };
      }),
    };
  });
}

/** The template management API of a business account (supplement §4). */
export function registerTemplates(router: Router, control: Router, state: SimState, registry: TemplateRegistry): void {
  router.post('/:wabaId/message_templates', (ctx) => {
    const waba = wabaFor(ctx, state, ctx.params.wabaId);
    const t = validateNewTemplate(jsonBody(ctx));
    if (registry.find(waba.id, t.name, t.language)) throw templateError(`Content in this language already exists: ${t.name} (${t.language})`, 2388024);
    registry.countCreation(waba.id);
    const template: SimTemplate = { ...t, id: state.numericId(), wabaId: waba.id, status: 'PENDING', rejectedReason: null, quality: 'UNKNOWN' };
    registry.add(template);
    ctx.body = { id: template.id, status: template.status, category: template.category };
  });

  router.get('/:wabaId/message_templates', (ctx) => {
    const waba = wabaFor(ctx, state, ctx.params.wabaId);
    const q = ctx.query;
    const limit = Math.min(Math.max(Number(q.limit ?? 25) || 25, 1), 100);
    let list = registry.ofWaba(waba.id).sort((a, b) => a.id.localeCompare(b.id));
    if (typeof q.name === 'string' && q.name) list = list.filter((t) => t.name.includes(q.name as string));
    if (typeof q.status === 'string' && q.status) list = list.filter((t) => t.status === q.status);
    const after = typeof q.after === 'string' && q.after ? Buffer.from(q.after, 'base64url').toString('utf8') : undefined;
    if (after) list = list.filter((t) => t.id > after);
    const page = list.slice(0, limit);
    const cursor = (t: SimTemplate | undefined) => (t ? Buffer.from(t.id).toString('base64url') : '');
    const more = list.length > limit;
    ctx.body = {
      data: page.map(present),
      paging: {
        cursors: { before: cursor(page[0]), after: cursor(page[page.length - 1]) },
        ...(more ? { next: `${ctx.origin}${ctx.path}?after=${cursor(page[page.length - 1])}&limit=${limit}` } : {}),
      },
    };
  });

  router.delete('/:wabaId/message_templates', async (ctx) => {
    const waba = wabaFor(ctx, state, ctx.params.wabaId);
    const name = typeof ctx.query.name === 'string' ? ctx.query.name : '';
    if (!name) throw templateError('name is required');
    const hsmId = typeof ctx.query.hsm_id === 'string' ? ctx.query.hsm_id : undefined;
    const matching = registry.ofWaba(waba.id).filter((t) => t.name === name && (!hsmId || t.id === hsmId));
    if (!matching.length)
      throw new GraphError(400, 100, 'Invalid parameter', {
        subcode: 2593002,
        details: `Message template "${name}" can't be found`,
        userTitle: 'Message template not found',
        userMsg: `Message template "${name}" can't be found`,
      });
    for (const t of matching) await registry.setStatus(t, 'DELETED', null);
    ctx.body = { success: true };
  });

  router.get('/:templateId', (ctx: Context, next: Next) => {
    const t = registry.templates.get(ctx.params.templateId);
    if (!t) return next();
    const token = bearer(ctx, state);
    if (!state.tokenAllows(token, t.wabaId)) throw unknownObject(t.id, 'get');
    ctx.body = present(t);
  });

  // ---- control API: seed approved templates, review, change status (each change sends the signed webhook)
  control.post('/_sim/templates', (ctx) => {
    const b = jsonBody(ctx);
    const t = validateNewTemplate(b);
    const status = oneOf(String(b.status ?? 'APPROVED'), 'status', TEMPLATE_STATUSES);
    const existing = registry.find(String(b.waba_id), t.name, t.language);
    const template: SimTemplate = { ...t, id: existing?.id ?? state.numericId(), wabaId: String(b.waba_id), status, rejectedReason: null, quality: 'GREEN' };
    registry.templates.set(template.id, template);
    ctx.body = present(template);
  });
  control.put('/_sim/templates/review', (ctx) => {
    const b = jsonBody(ctx);
    if (b.mode === 'auto' || b.mode === 'manual') registry.review.mode = b.mode;
    if (typeof b.delay_ms === 'number') registry.review.delayMs = b.delay_ms;
    if (typeof b.enforce === 'boolean') registry.enforce = b.enforce;
    if (typeof b.creations_per_hour === 'number' && b.creations_per_hour > 0) registry.creationsPerHour = b.creations_per_hour;
    ctx.body = { ...registry.review, enforce: registry.enforce, creations_per_hour: registry.creationsPerHour };
  });
  control.post('/_sim/templates/:id/status', async (ctx) => {
    const t = registry.templates.get(ctx.params.id);
    if (!t) {
      ctx.status = 404;
      ctx.body = { error: 'unknown template' };
      return;
    }
    const b = jsonBody(ctx);
    const status = oneOf(String(b.status), 'status', TEMPLATE_STATUSES);
    const res = await registry.setStatus(
      t,
      status,
      typeof b.reason === 'string' ? b.reason : null,
      b.other_info as { title: string; description: string } | undefined,
    );
    ctx.body = { template: present(t), webhook_status: res.status };
  });
}
