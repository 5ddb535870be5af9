import { AppError } from '@gateway/errors';
import { tenantOf } from '../auth';
import { apiKeyJson } from '../presenters';
import { apiKeyPath, revokeQuery } from '../schemas/dashboard';
import { validateParts } from '../validation';
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
  router.get('/api/api-keys', list);
  router.get('/api/api-keys/', list);

  const create = async (ctx: import('koa').Context) => {
    const tenantId = tenantOf(ctx);
    const res = await services.directory.createApiKey({ tenantId });
    const info = (await services.directory.listApiKeys({ tenantId })).keys.find((k) => k.prefix === res.prefix);
    ctx.status = 201;
    ctx.body = { api_key: res.apiKey, prefix: res.prefix, created_at: info?.createdAt ?? new Date().toISOString() };
  };
  router.post('/api/api-keys', create);
  router.post('/api/api-keys/', create);

  router.delete('/api/api-keys/:prefix', async (ctx) => {
    const { path, query } = validateParts<{ path: { prefix: string }; query: { confirm: boolean } }>({ path: [apiKeyPath, ctx.params], query: [revokeQuery, ctx.query] });
    if (path.prefix === ctx.state.apiKeyPrefix && !query.confirm) {
      throw AppError.conflict('current_api_key', 'This is the key of the current request or session: revoking it signs you out. Repeat with ?confirm=true to revoke it anyway.');
    }
    await services.directory.revokeApiKey({ tenantId: tenantOf(ctx), prefix: path.prefix });
    ctx.status = 204;
  });
};
