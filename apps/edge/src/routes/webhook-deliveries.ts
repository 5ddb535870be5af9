import { tenantOf } from '../auth';
import { deliveryJson } from '../presenters';
import { clientPath, deliveryPath, listQuery, replayBody } from '../schemas/webhook-deliveries';
import { validateParts } from '../validation';
import { ListCursors } from '../cursors';
import type { RegisterRoutes } from './context';

/**
 * Webhook delivery records, manual redelivery and test events of a client. The client is checked against
 * the caller's tenant first (another tenant's client is a 404, as everywhere).
 */
export const registerWebhookDeliveryRoutes: RegisterRoutes = (router, { services, config }) => {
  const cursors = new ListCursors(config.adminToken);
  const ownClient = async (ctx: import('koa').Context, clientId: string) => {
    await services.directory.getClient({ tenantId: tenantOf(ctx), clientId });
  };

  router.get('/api/clients/:id/webhook/deliveries', async (ctx) => {
    const { path, query } = validateParts<{ path: { id: string }; query: { status?: string; event_type?: string; limit: number; cursor?: string } }>({
      path: [clientPath, ctx.params],
      query: [listQuery, ctx.query],
    });
    await ownClient(ctx, path.id);
    const scope = ['deliveries', tenantOf(ctx), path.id];
    const cursor = cursors.open(scope, query.cursor);
    const res = await services.dispatcher.listDeliveries({ tenantId: tenantOf(ctx), clientId: path.id, status: query.status, eventType: query.event_type, limit: query.limit, cursor });
    ctx.body = { data: res.deliveries.map(deliveryJson), next_cursor: cursors.seal(scope, res.nextCursor) };
  });

  router.get('/api/clients/:id/webhook/deliveries/:delivery_id', async (ctx) => {
    const { path } = validateParts<{ path: { id: string; delivery_id: string } }>({ path: [deliveryPath, ctx.params] });
    await ownClient(ctx, path.id);
    ctx.body = deliveryJson((await services.dispatcher.getDelivery({ tenantId: tenantOf(ctx), clientId: path.id, deliveryId: path.delivery_id })).delivery);
  });

  router.post('/api/clients/:id/webhook/deliveries/replay', async (ctx) => {
    const { path, body } = validateParts<{ path: { id: string }; body: { status: string; since: string; until?: string } }>({
      path: [clientPath, ctx.params],
      body: [replayBody, ctx.request.body ?? {}],
    });
    await ownClient(ctx, path.id);
    const res = await services.dispatcher.replayDeliveries({
      tenantId: tenantOf(ctx),
      clientId: path.id,
      status: body.status,
      since: body.since,
      until: body.until,
    });
    ctx.status = 202;
    ctx.body = { replayed: res.replayed, has_more: res.hasMore };
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
