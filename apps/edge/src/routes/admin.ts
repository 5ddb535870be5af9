import { listDeadLetters, replayDeadLetters } from '@gateway/bus';
import { AppError } from '@gateway/errors';
import { deadLetterJson, tenantJson } from '../presenters';
import { createTenant, keyPath, tenantPath } from '../schemas/admin';
import { deadLetterQuery, replayBody } from '../schemas/dead-letters';
import { validateParts } from '../validation';
import type { RegisterRoutes } from './context';

/** Operator API (decisions.md), authorised by GATEWAY_ADMIN_TOKEN. */
/** Mounted under /admin behind adminAuth (see app.ts). */
export const registerAdminRoutes: RegisterRoutes = (router, { services, bus, logger }) => {
  const connectedBus = () => {
    if (!bus?.isConnected()) throw new AppError('unavailable', 'bus_unavailable', 'The event bus is unavailable');
    return bus;
  };

  // messages a durable consumer could not handle after its last delivery (libs/bus dead-letter.ts), oldest first
  router.get('/admin/dead-letters', async (ctx) => {
    const { query } = validateParts<{ query: { stream?: string; limit: number } }>({ query: [deadLetterQuery, ctx.query] });
    ctx.body = { data: (await listDeadLetters(connectedBus(), query)).map(deadLetterJson) };
  });

  // once the cause is fixed: back to their original subjects with their original headers, and out of DEAD_LETTER
  router.post('/admin/dead-letters/replay', async (ctx) => {
    const { body } = validateParts<{ body: { stream?: string; seqs?: number[] } }>({ body: [replayBody, ctx.request.body] });
    const res = await replayDeadLetters(connectedBus(), { ...body, limit: 1000 });
    logger.info({ ...res, stream: body.stream }, 'dead letters replayed');
    ctx.body = res;
  });

  router.post('/admin/tenants', async (ctx) => {
    const { body } = validateParts<{ body: Record<string, string> }>({ body: [createTenant, ctx.request.body] });
    const res = await services.directory.createTenant({
      name: body.name,
      email: body.email,
      plan: body.plan,
      webhookUrl: body.webhook_url,
      billingCustomerId: body.billing_customer_id,
      billingSubscriptionId: body.billing_subscription_id,
    });
    ctx.status = 201;
    ctx.body = { tenant: tenantJson(res.tenant), api_key: res.apiKey };
  });

  router.get('/admin/tenants/:id', async (ctx) => {
    const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
    ctx.body = tenantJson((await services.directory.getTenant({ tenantId: path.id })).tenant);
  });

  router.get('/admin/tenants/:id/api-keys', async (ctx) => {
    const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
    const res = await services.directory.listApiKeys({ tenantId: path.id });
    ctx.body = {
      data: res.keys.map((k) => ({ prefix: k.prefix, created_at: k.createdAt, revoked_at: k.revokedAt ?? null, last_used_at: k.lastUsedAt ?? null })),
    };
  });

  router.post('/admin/tenants/:id/api-keys', async (ctx) => {
    const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
    const res = await services.directory.createApiKey({ tenantId: path.id });
    ctx.status = 201;
    ctx.body = { api_key: res.apiKey, prefix: res.prefix };
  });

  router.delete('/admin/tenants/:id/api-keys/:prefix', async (ctx) => {
    const { path } = validateParts<{ path: { id: string; prefix: string } }>({ path: [keyPath, ctx.params] });
    await services.directory.revokeApiKey({ tenantId: path.id, prefix: path.prefix });
    ctx.status = 204;
  });
};
