import { tenantOf } from '../auth';
import { secretRotationJson, tenantJson } from '../presenters';
import { webhookUrlBody } from '../schemas/tenants';
import { validateParts } from '../validation';
import type { RegisterRoutes } from './context';

export const registerTenantRoutes: RegisterRoutes = (router, { services }) => {
  // the caller's own tenant record (the dashboard's settings page)
  router.get('/api/tenants/me', async (ctx) => {
    ctx.body = tenantJson((await services.directory.getTenant({ tenantId: tenantOf(ctx) })).tenant);
  });

  router.put('/api/tenants/webhook-url', async (ctx) => {
    const { body } = validateParts<{ body: { webhook_url: string } }>({ body: [webhookUrlBody, ctx.request.body] });
    const res = await services.directory.updateTenantWebhookUrl({ tenantId: tenantOf(ctx), webhookUrl: body.webhook_url });
    ctx.body = tenantJson(res.tenant);
  });

  // a new secret; the previous one keeps signing (a second webhook-signature entry) until it expires
  router.post('/api/tenants/webhook-secret/rotate', async (ctx) => {
    ctx.body = secretRotationJson(await services.directory.rotateWebhookSecret({ tenantId: tenantOf(ctx) }));
  });
};
