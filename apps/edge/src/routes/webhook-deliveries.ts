import { tenantOf } from '../auth';
import { DeliveriesReplayed, Delivery, pageOf, QueuedDelivery, respond } from '../presenters';
import { clientPath, deliveryPath, listQuery, replayBody } from '../schemas/webhook-deliveries';
import { validateParts } from '../validation';
import { ListCursors } from '../cursors';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';

/**
 * Webhook delivery records, manual redelivery and test events of a client. The client is checked against
 * the caller's tenant first (another tenant's client is a 404, as everywhere).
 */
const Deliveries = pageOf(Delivery);

export const registerWebhookDeliveryRoutes: RegisterRoutes = (router, { services, config }) => {
  const cursors = new ListCursors(config.adminToken);
  const ownClient = async (ctx: import('koa').Context, clientId: string) => {
    await services.directory.getClient({ tenantId: tenantOf(ctx), clientId });
  };

  router.get(
    '/api/clients/:id/webhook/deliveries',
    operation({
      operationId: 'listDeliveries',
      summary: "A client's webhook deliveries",
      description: 'One record per delivery series (an event and its retries), newest first; `body` is null in lists.',
      tags: ['Deliveries'],
      request: { path: clientPath, query: listQuery },
      responses: { 200: json('A page of deliveries.', Deliveries) },
      errors: [404],
    }),
    async (ctx) => {
      const { path, query } = validateParts<{ path: { id: string }; query: { status?: string; event_type?: string; limit: number; cursor?: string } }>({
        path: [clientPath, ctx.params],
        query: [listQuery, ctx.query],
      });
      await ownClient(ctx, path.id);
      const scope = ['deliveries', tenantOf(ctx), path.id];
      const cursor = cursors.open(scope, query.cursor);
      const res = await services.dispatcher.listDeliveries({
        tenantId: tenantOf(ctx),
        clientId: path.id,
        status: query.status,
        eventType: query.event_type,
        limit: query.limit,
        cursor,
      });
      respond(ctx, Deliveries, { items: res.deliveries, nextCursor: cursors.seal(scope, res.nextCursor) });
    },
  );

  router.get(
    '/api/clients/:id/webhook/deliveries/:delivery_id',
    operation({
      operationId: 'getDelivery',
      summary: 'A delivery, its attempts and the exact signed body',
      tags: ['Deliveries'],
      request: { path: deliveryPath },
      responses: { 200: json('The delivery.', Delivery) },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string; delivery_id: string } }>({ path: [deliveryPath, ctx.params] });
      await ownClient(ctx, path.id);
      respond(ctx, Delivery, (await services.dispatcher.getDelivery({ tenantId: tenantOf(ctx), clientId: path.id, deliveryId: path.delivery_id })).delivery);
    },
  );

  router.post(
    '/api/clients/:id/webhook/deliveries/replay',
    operation({
      operationId: 'replayDeliveries',
      summary: 'Redeliver the failed (or skipped) deliveries of a time range',
      tags: ['Deliveries'],
      request: { path: clientPath, body: replayBody },
      responses: {
        202: json('Queued.', DeliveriesReplayed),
      },
      errors: [404],
    }),
    async (ctx) => {
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
      respond(ctx, DeliveriesReplayed, res, 202);
    },
  );

  router.post(
    '/api/clients/:id/webhook/deliveries/:delivery_id/retry',
    operation({
      operationId: 'retryDelivery',
      summary: 'Deliver an event again (a new series)',
      tags: ['Deliveries'],
      request: { path: deliveryPath },
      responses: { 202: json('Queued.', QueuedDelivery) },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string; delivery_id: string } }>({ path: [deliveryPath, ctx.params] });
      await ownClient(ctx, path.id);
      const res = await services.dispatcher.retryDelivery({ tenantId: tenantOf(ctx), clientId: path.id, deliveryId: path.delivery_id });
      respond(ctx, QueuedDelivery, res, 202);
    },
  );

  router.post(
    '/api/clients/:id/webhook/test',
    operation({
      operationId: 'sendTestEvent',
      summary: "Send a `test` event to the client's webhook",
      tags: ['Deliveries'],
      request: { path: clientPath },
      responses: { 202: json('Queued.', QueuedDelivery) },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [clientPath, ctx.params] });
      await ownClient(ctx, path.id);
      const res = await services.dispatcher.sendTestEvent({ tenantId: tenantOf(ctx), clientId: path.id });
      respond(ctx, QueuedDelivery, res, 202);
    },
  );
};
