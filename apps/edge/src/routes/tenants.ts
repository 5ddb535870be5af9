import { tenantOf } from '../auth';
import { respond, SecretRotation, Tenant } from '../presenters';
import { webhookUrlBody } from '../schemas/tenants';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';

export const registerTenantRoutes: RegisterRoutes = (router, { services }) => {
  // the caller's own tenant record (the dashboard's settings page)
  router.get(
    '/api/tenants/me',
    operation({ operationId: 'getTenant', summary: "The caller's tenant", tags: ['Tenant'], responses: { 200: json('The tenant.', Tenant) } }),
    async (ctx) => {
      respond(ctx, Tenant, (await services.directory.getTenant({ tenantId: tenantOf(ctx) })).tenant);
    },
  );

  router.put(
    '/api/tenants/webhook-url',
    operation({
      operationId: 'setWebhookUrl',
      summary: "Set the tenant's webhook URL",
      tags: ['Tenant'],
      request: { body: webhookUrlBody },
      responses: { 200: json('The tenant.', Tenant) },
    }),
    async (ctx) => {
      const { body } = validateParts<{ body: { webhook_url: string } }>({ body: [webhookUrlBody, ctx.request.body] });
      const res = await services.directory.updateTenantWebhookUrl({ tenantId: tenantOf(ctx), webhookUrl: body.webhook_url });
      respond(ctx, Tenant, res.tenant);
    },
  );

  // a new secret; the previous one keeps signing (a second webhook-signature entry) until it expires
  router.post(
    '/api/tenants/webhook-secret/rotate',
    operation({
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the webhook secret',
      description: 'The previous secret keeps signing (a second `webhook-signature` entry) until `previous_secret_expires_at`.',
      tags: ['Tenant'],
      responses: { 200: json('The new secret.', SecretRotation) },
    }),
    async (ctx) => {
      respond(ctx, SecretRotation, await services.directory.rotateWebhookSecret({ tenantId: tenantOf(ctx) }));
    },
  );
};
