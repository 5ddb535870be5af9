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
  components: t.components,
  quality_score: { score: t.quality },
  ...(t.rejectedReason ? { rejected_reason: t.rejectedReason } : { rejected_reason: 'NONE' }),
});

/** The template management API of a business account (supplement §4). */
export function registerTemplates(router: Router, control: Router, state: SimState, registry: TemplateRegistry): void {
  router.post('/:wabaId/message_templates', (ctx) => {
    const waba = wabaFor(ctx, state, ctx.params.wabaId);
    const t = validateNewTemplate(jsonBody(ctx));
    if (registry.find(waba.id, t.name, t.language)) throw templateError(`Content in this language already exists: ${t.name} (${t.language})`, 2388024);
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
      paging: { cursors: { before: cursor(page[0]), after: cursor(page[page.length - 1]) }, ...(more ? { next: `${ctx.origin}${ctx.path}?after=${cursor(page[page.length - 1])}&limit=${limit}` } : {}) },
    };
  });

  router.delete('/:wabaId/message_templates', async (ctx) => {
    const waba = wabaFor(ctx, state, ctx.params.wabaId);
    const name = typeof ctx.query.name === 'string' ? ctx.query.name : '';
    if (!name) throw templateError('name is required');
    const hsmId = typeof ctx.query.hsm_id === 'string' ? ctx.query.hsm_id : undefined;
    const matching = registry.ofWaba(waba.id).filter((t) => t.name === name && (!hsmId || t.id === hsmId));
    if (!matching.length) throw new GraphError(400, 100, 'Invalid parameter', { subcode: 2593002, details: `Message template "${name}" can't be found`, userTitle: 'Message template not found', userMsg: `Message template "${name}" can't be found` });
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
    ctx.body = { ...registry.review, enforce: registry.enforce };
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
    const res = await registry.setStatus(t, status, typeof b.reason === 'string' ? b.reason : null, b.other_info as { title: string; description: string } | undefined);
    ctx.body = { template: present(t), webhook_status: res.status };
  });
}
