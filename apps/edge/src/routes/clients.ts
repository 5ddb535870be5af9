import { tenantOf } from '../auth';
import { ListCursors } from '../cursors';
import { Client, pageOf, respond } from '../presenters';
import { idPath, listQuery, patchBody, registerBody } from '../schemas/clients';
import { httpsUrl } from '../schemas/common';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';

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

interface PatchBody {
  display_name?: string;
  external_id?: string | null;
  webhook_url?: string | null;
  webhook_events?: string[] | null;
  stop_keywords?: string[];
  webhook_status?: string;
  is_active?: boolean;
  marketing_messages?: 'auto' | 'cloud_api';
}

const Clients = pageOf(Client);

export const registerClientRoutes: RegisterRoutes = (router, { services, config }) => {
  const cursors = new ListCursors(config.adminToken);
  // a signup page redirects the business's browser there: https only, plain http in development mode
  const registerSchema = config.allowPrivateTargets ? registerBody : registerBody.keys({ success_redirect_url: httpsUrl, failure_redirect_url: httpsUrl });
  const register = async (ctx: import('koa').Context) => {
    const { body } = validateParts<{ body: RegisterBody }>({ body: [registerSchema, ctx.request.body] });
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
    respond(ctx, Client, res.client);
  };
  const registerOp = operation({
    operationId: 'registerClient',
    summary: 'Register a client',
    description:
      'With `business_account_id`, `phone_number_id` and `access_token`: an active client. Without them: a pending client whose `embed_signup_url` runs embedded signup.',
    tags: ['Clients'],
    request: { body: registerSchema },
    responses: { 200: json('The client.', Client) },
    errors: [409],
  });
  router.post('/api/clients/', registerOp, register);
  router.post('/api/clients', registerOp, register);

  const list = async (ctx: import('koa').Context) => {
    const { query } = validateParts<{ query: { limit: number; cursor?: string } }>({ query: [listQuery, ctx.query] });
    // a key limited to some clients lists those only (scopes.ts)
    const only = (ctx.state.clientIds as string[] | undefined) ?? [];
    const scope = ['clients', tenantOf(ctx), ...only];
    const res = await services.directory.listClients({
      tenantId: tenantOf(ctx),
      limit: query.limit,
      cursor: cursors.open(scope, query.cursor),
      onlyClientIds: only,
    });
    respond(ctx, Clients, { items: res.clients, nextCursor: cursors.seal(scope, res.nextCursor) });
  };
  const listOp = operation({
    operationId: 'listClients',
    summary: "List the tenant's clients",
    tags: ['Clients'],
    request: { query: listQuery },
    responses: { 200: json('A page of clients, oldest first.', Clients) },
  });
  router.get('/api/clients', listOp, list);
  router.get('/api/clients/', listOp, list);

  router.get(
    '/api/clients/:id',
    operation({
      operationId: 'getClient',
      summary: 'Get a client',
      tags: ['Clients'],
      request: { path: idPath },
      responses: { 200: json('The client.', Client) },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [idPath, ctx.params] });
      respond(ctx, Client, (await services.directory.getClient({ tenantId: tenantOf(ctx), clientId: path.id })).client);
    },
  );

  router.patch(
    '/api/clients/:id',
    operation({
      operationId: 'updateClient',
      summary: 'Update a client',
      description:
        '`null` clears `external_id`, `webhook_url` and `webhook_events`; `webhook_status: "active"` enables a disabled webhook again; `marketing_messages` chooses where marketing templates go (`auto`: the Marketing Messages API once the client is onboarded to it, `cloud_api`: always `/messages`).',
      tags: ['Clients'],
      request: { path: idPath, body: patchBody },
      responses: { 200: json('The client.', Client) },
      errors: [404, 409],
    }),
    async (ctx) => {
      const { path, body } = validateParts<{ path: { id: string }; body: PatchBody }>({
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
        isActive: body.is_active,
        setWebhookEvents: body.webhook_events !== undefined,
        webhookEvents: body.webhook_events ?? [],
        setStopKeywords: body.stop_keywords !== undefined,
        stopKeywords: body.stop_keywords ?? [],
        webhookStatus: body.webhook_status,
        marketingMessages: body.marketing_messages,
      });
      respond(ctx, Client, res.client);
    },
  );
};
