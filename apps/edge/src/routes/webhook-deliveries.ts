import Joi from 'joi';
import type { dispatcher as d } from '@gateway/contracts';
import { tenantOf } from '../auth';
import { uuid } from '../schemas/common';
import { validateParts } from '../validation';
import type { RegisterRoutes } from './context';

const clientPath = Joi.object({ id: uuid.required() });
const deliveryPath = Joi.object({ id: uuid.required(), delivery_id: uuid.required() });
const listQuery = Joi.object({
  status: Joi.string().valid('pending', 'succeeded', 'failed', 'skipped'),
  event_type: Joi.string().valid('chat', 'signup_completed', 'template_status', 'flow_completion', 'test'),
  limit: Joi.number().integer().min(1).max(100).default(20),
  cursor: Joi.string().max(128),
});

/** The delivery record of decisions.md ("Events and delivery"), attempts included. */
export function deliveryJson(r: d.Delivery | undefined) {
  if (!r) return null;
  return {
    id: r.id,
    event_id: r.eventId,
    event_type: r.eventType,
    client_id: r.clientId,
    url: r.url ?? null,
    status: r.status,
    attempts: r.attempts,
    response_code: r.responseCode ?? null,
    last_error: r.lastError ?? null,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    attempt_log: r.attemptLog.map((a) => ({ number: a.number, at: a.at, duration_ms: a.durationMs, response_code: a.responseCode ?? null, error: a.error ?? null })),
  };
}

/**
 * Webhook delivery records, manual redelivery and test events of a client. The client is checked against
 * the caller's tenant first (another tenant's client is a 404, as everywhere).
 */
export const registerWebhookDeliveryRoutes: RegisterRoutes = (router, { services }) => {
  const ownClient = async (ctx: import('koa').Context, clientId: string) => {
    await services.directory.getClient({ tenantId: tenantOf(ctx), clientId });
  };

  router.get('/api/clients/:id/webhook/deliveries', async (ctx) => {
    const { path, query } = validateParts<{ path: { id: string }; query: { status?: string; event_type?: string; limit: number; cursor?: string } }>({
      path: [clientPath, ctx.params],
      query: [listQuery, ctx.query],
    });
    await ownClient(ctx, path.id);
    const res = await services.dispatcher.listDeliveries({ tenantId: tenantOf(ctx), clientId: path.id, status: query.status, eventType: query.event_type, limit: query.limit, cursor: query.cursor });
    ctx.body = { data: res.deliveries.map(deliveryJson), next_cursor: res.nextCursor ?? null };
  });

  router.get('/api/clients/:id/webhook/deliveries/:delivery_id', async (ctx) => {
    const { path } = validateParts<{ path: { id: string; delivery_id: string } }>({ path: [deliveryPath, ctx.params] });
    await ownClient(ctx, path.id);
    ctx.body = deliveryJson((await services.dispatcher.getDelivery({ tenantId: tenantOf(ctx), clientId: path.id, deliveryId: path.delivery_id })).delivery);
  });

  router.post('/api/clients/:id/webhook/deliveries/:delivery_id/retry', async (ctx) => {
    const { path } = validateParts<{ path: { id: string; delivery_id: string } }>({ path: [deliveryPath, ctx.params] });
    await ownClient(ctx, path.id);
    const res = await services.dispatcher.retryDelivery({ tenantId: tenantOf(ctx), clientId: path.id, deliveryId: path.delivery_id });
    ctx.status = 202;
    ctx.body = { event_id: res.eventId, delivery_id: res.deliveryId };
  });

  router.post('/api/clients/:id/webhook/test', async (ctx) => {
    const { path } = validateParts<{ path: { id: string } }>({ path: [clientPath, ctx.params] });
    await ownClient(ctx, path.id);
    const res = await services.dispatcher.sendTestEvent({ tenantId: tenantOf(ctx), clientId: path.id });
    ctx.status = 202;
    ctx.body = { event_id: res.eventId, delivery_id: res.deliveryId };
  });
};
