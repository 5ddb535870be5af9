import { AppError } from '@gateway/errors';
import { tenantOf } from '../auth';
import { ApiKey, ApiKeyCreated, listOf, respond } from '../presenters';
import { apiKeyPath, createKeyBody, revokeQuery } from '../schemas/dashboard';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';

/**
 * The caller's own API keys: list (prefixes only), create (the key is shown once), revoke. Revoking the key
 * the request itself is made with (bearer, or the key behind the dashboard session) signs the caller out, so
 * it needs `?confirm=true`; revocation also ends every dashboard session opened with that key.
 */
const ApiKeys = listOf(ApiKey);

export const registerApiKeyRoutes: RegisterRoutes = (router, { services }) => {
  const list = async (ctx: import('koa').Context) => {
    const res = await services.directory.listApiKeys({ tenantId: tenantOf(ctx) });
    respond(
      ctx,
      ApiKeys,
      res.keys.map((key) => ({ key, currentPrefix: ctx.state.apiKeyPrefix as string | undefined })),
    );
  };
  const listOp = operation({
    operationId: 'listApiKeys',
    summary: "The tenant's API keys (prefixes only)",
    tags: ['Tenant'],
    responses: { 200: json('Every key, revoked ones too.', ApiKeys) },
  });
  router.get('/api/api-keys', listOp, list);
  router.get('/api/api-keys/', listOp, list);

  const create = async (ctx: import('koa').Context) => {
    const tenantId = tenantOf(ctx);
    const { body } = validateParts<{ body: { scopes?: string[]; client_ids?: string[]; expires_at?: string } }>({
      body: [createKeyBody, ctx.request.body ?? {}],
    });
    const expiresAt = body.expires_at === undefined ? undefined : new Date(body.expires_at);
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw AppError.validation([{ loc: ['body', 'expires_at'], msg: 'must be in the future', type: 'date.greater', input: body.expires_at, ctx: {} }]);
    }
    const res = await services.directory.createApiKey({ tenantId, scopes: body.scopes, clientIds: body.client_ids, expiresAt: expiresAt?.toISOString() });
    const info = (await services.directory.listApiKeys({ tenantId })).keys.find((k) => k.prefix === res.prefix);
    respond(ctx, ApiKeyCreated, { created: res, info }, 201);
  };
  const createOp = operation({
    operationId: 'createApiKey',
    summary: 'Create an API key (shown once)',
    description:
      'Optionally scoped: `scopes` (what it may do), `client_ids` (the only clients it reaches: others are 404) and `expires_at`. A key without the scope a route needs gets `403 insufficient_scope`. Without them the key may do everything.',
    tags: ['Tenant'],
    request: { body: createKeyBody },
    responses: {
      201: json('The new key.', ApiKeyCreated),
    },
  });
  router.post('/api/api-keys', createOp, create);
  router.post('/api/api-keys/', createOp, create);

  const revokeOp = operation({
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description: 'Revoking the key of the request itself (or of the dashboard session) needs `?confirm=true`; its dashboard sessions end at once.',
    tags: ['Tenant'],
    request: { path: apiKeyPath, query: revokeQuery },
    responses: { 204: { description: 'Revoked.' } },
    errors: [404, 409],
  });
  router.delete('/api/api-keys/:prefix', revokeOp, async (ctx) => {
    const { path, query } = validateParts<{ path: { prefix: string }; query: { confirm: boolean } }>({
      path: [apiKeyPath, ctx.params],
      query: [revokeQuery, ctx.query],
    });
    if (path.prefix === ctx.state.apiKeyPrefix && !query.confirm) {
      throw AppError.conflict(
        'current_api_key',
        'This is the key of the current request or session: revoking it signs you out. Repeat with ?confirm=true to revoke it anyway.',
      );
    }
    await services.directory.revokeApiKey({ tenantId: tenantOf(ctx), prefix: path.prefix });
    ctx.status = 204;
  });
};
