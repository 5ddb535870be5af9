import { tenantJson } from '../presenters';
import { createTenant, keyPath, tenantPath } from '../schemas/admin';
import { validateParts } from '../validation';
import type { RegisterRoutes } from './context';

/** Operator API (decisions.md), authorised by GATEWAY_ADMIN_TOKEN. */
/** Mounted under /admin behind adminAuth (see app.ts). */
export const registerAdminRoutes: RegisterRoutes = (router, { services }) => {

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
