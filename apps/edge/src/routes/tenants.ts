import Joi from 'joi';
import { tenantOf } from '../auth';
import { tenantJson } from '../presenters';
import { httpUrl } from '../schemas/common';
import { validateParts } from '../validation';
import type { RegisterRoutes } from './context';

const webhookUrlBody = Joi.object({ webhook_url: httpUrl.required() }).required();

export const registerTenantRoutes: RegisterRoutes = (router, { services }) => {
  router.put('/api/tenants/webhook-url', async (ctx) => {
    const { body } = validateParts<{ body: { webhook_url: string } }>({ body: [webhookUrlBody, ctx.request.body] });
    const res = await services.directory.updateTenantWebhookUrl({ tenantId: tenantOf(ctx), webhookUrl: body.webhook_url });
    ctx.body = tenantJson(res.tenant);
  });
};
