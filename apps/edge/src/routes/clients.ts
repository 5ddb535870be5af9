import Joi from 'joi';
import { tenantOf } from '../auth';
import { clientJson } from '../presenters';
import { httpUrl, providerId, uuid } from '../schemas/common';
import { validateParts } from '../validation';
import type { RegisterRoutes } from './context';

const registerBody = Joi.object({
  display_name: Joi.string().trim().min(1).max(200).required(),
  external_id: Joi.string().max(255),
  webhook_url: httpUrl,
  success_redirect_url: httpUrl,
  failure_redirect_url: httpUrl,
  business_account_id: providerId,
  phone_number_id: providerId,
  access_token: Joi.string().min(1).max(4096),
  provider_business_id: providerId,
  catalog_id: providerId,
})
  // the business-account fields come together or not at all (without them: a pending signup placeholder)
  .and('business_account_id', 'phone_number_id', 'access_token')
  .required();

const patchBody = Joi.object({
  display_name: Joi.string().trim().min(1).max(200),
  external_id: Joi.string().max(255).allow(null),
  webhook_url: httpUrl.allow(null),
}).required();

const idPath = Joi.object({ id: uuid.required() });
const listQuery = Joi.object({ limit: Joi.number().integer().min(1).max(100).default(20), cursor: Joi.string().max(512) });

interface RegisterBody {
  display_name: string;
  external_id?: string;
  webhook_url?: string;
  success_redirect_url?: string;
  failure_redirect_url?: string;
  business_account_id?: string;
  phone_number_id?: string;
  access_token?: string;
  provider_business_id?: string;
  catalog_id?: string;
}

export const registerClientRoutes: RegisterRoutes = (router, { services }) => {
  const register = async (ctx: import('koa').Context) => {
    const { body } = validateParts<{ body: RegisterBody }>({ body: [registerBody, ctx.request.body] });
    const res = await services.directory.registerClient({
      tenantId: tenantOf(ctx),
      displayName: body.display_name,
      externalId: body.external_id,
      webhookUrl: body.webhook_url,
      successRedirectUrl: body.success_redirect_url,
      failureRedirectUrl: body.failure_redirect_url,
      businessAccountId: body.business_account_id,
      phoneNumberId: body.phone_number_id,
      accessToken: body.access_token,
      providerBusinessId: body.provider_business_id,
      catalogId: body.catalog_id,
    });
    ctx.body = clientJson(res.client);
  };
  router.post('/api/clients/', register);
  router.post('/api/clients', register);

  const list = async (ctx: import('koa').Context) => {
    const { query } = validateParts<{ query: { limit: number; cursor?: string } }>({ query: [listQuery, ctx.query] });
    const res = await services.directory.listClients({ tenantId: tenantOf(ctx), limit: query.limit, cursor: query.cursor });
    ctx.body = { data: res.clients.map(clientJson), next_cursor: res.nextCursor ?? null };
  };
  router.get('/api/clients', list);
  router.get('/api/clients/', list);

  router.get('/api/clients/:id', async (ctx) => {
    const { path } = validateParts<{ path: { id: string } }>({ path: [idPath, ctx.params] });
    ctx.body = clientJson((await services.directory.getClient({ tenantId: tenantOf(ctx), clientId: path.id })).client);
  });

  router.patch('/api/clients/:id', async (ctx) => {
    const { path, body } = validateParts<{ path: { id: string }; body: Record<string, string | null> }>({
      path: [idPath, ctx.params],
      body: [patchBody, ctx.request.body],
    });
    const clear = (['external_id', 'webhook_url'] as const).filter((k) => body[k] === null);
    const res = await services.directory.updateClient({
      tenantId: tenantOf(ctx),
      clientId: path.id,
      displayName: body.display_name ?? undefined,
      externalId: body.external_id ?? undefined,
      webhookUrl: body.webhook_url ?? undefined,
      clearFields: clear,
    });
    ctx.body = clientJson(res.client);
  });
};
