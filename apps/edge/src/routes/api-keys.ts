import { AppError } from '@gateway/errors';
import { tenantOf } from '../auth';
import { apiKeyJson } from '../presenters';
import { apiKeyPath, revokeQuery } from '../schemas/dashboard';
import { validateParts } from '../validation';
import { json, list as listOf, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';

/**
 * The caller's own API keys: list (prefixes only), create (the key is shown once), revoke. Revoking the key
 * the request itself is made with (bearer, or the key behind the dashboard session) signs the caller out, so
 * it needs `?confirm=true`; revocation also ends every dashboard session opened with that key.
 */
export const registerApiKeyRoutes: RegisterRoutes = (router, { services }) => {
  const list = async (ctx: import('koa').Context) => {
    const res = await services.directory.listApiKeys({ tenantId: tenantOf(ctx) });
    ctx.body = { data: res.keys.map((k) => apiKeyJson(k, ctx.state.apiKeyPrefix)) };
  };
  const listOp = operation({ operationId: 'listApiKeys', summary: "The tenant's API keys (prefixes only)", tags: ['Tenant'], responses: { 200: json('Every key, revoked ones too.', listOf('ApiKey')) } });
  router.get('/api/api-keys', listOp, list);
  router.get('/api/api-keys/', listOp, list);

  const create = async (ctx: import('koa').Context) => {
    const tenantId = tenantOf(ctx);
    const res = await services.directory.createApiKey({ tenantId });
    const info = (await services.directory.listApiKeys({ tenantId })).keys.find((k) => k.prefix === res.prefix);
    ctx.status = 201;
    ctx.body = { api_key: res.apiKey, prefix: res.prefix, created_at: info?.createdAt ?? new Date().toISOString() };
  };
  const createOp = operation({
    operationId: 'createApiKey',
    summary: 'Create an API key (shown once)',
    tags: ['Tenant'],
    responses: {
      201: json('The new key.', {
        type: 'object',
        required: ['api_key', 'prefix', 'created_at'],
        additionalProperties: false,
        properties: { api_key: { type: 'string', description: 'The key: shown only here.' }, prefix: { type: 'string' }, created_at: { type: 'string' } },
      }),
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
    const { path, query } = validateParts<{ path: { prefix: string }; query: { confirm: boolean } }>({ path: [apiKeyPath, ctx.params], query: [revokeQuery, ctx.query] });
    if (path.prefix === ctx.state.apiKeyPrefix && !query.confirm) {
      throw AppError.conflict('current_api_key', 'This is the key of the current request or session: revoking it signs you out. Repeat with ?confirm=true to revoke it anyway.');
    }
    await services.directory.revokeApiKey({ tenantId: tenantOf(ctx), prefix: path.prefix });
    ctx.status = 204;
  });
};
