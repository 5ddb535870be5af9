import { listDeadLetters, replayDeadLetters } from '@gateway/bus';
import { AppError } from '@gateway/errors';
import { deadLetterJson, tenantJson } from '../presenters';
import { createTenant, keyPath, tenantPath } from '../schemas/admin';
import { deadLetterQuery, replayBody } from '../schemas/dead-letters';
import { validateParts } from '../validation';
import { json, list as listOf, operation, ref } from '../openapi/operation';
import type { RegisterRoutes } from './context';

/** Operator API (decisions.md), authorised by GATEWAY_ADMIN_TOKEN. */
/** Mounted under /admin behind adminAuth (see app.ts). */
export const registerAdminRoutes: RegisterRoutes = (router, { services, bus, logger }) => {
  const connectedBus = () => {
    if (!bus?.isConnected()) throw new AppError('unavailable', 'bus_unavailable', 'The event bus is unavailable');
    return bus;
  };

  // messages a durable consumer could not handle after its last delivery (libs/bus dead-letter.ts), oldest first
  router.get('/admin/dead-letters', operation({ operationId: 'listDeadLetters', summary: 'Messages a consumer gave up on, oldest first', tags: ['Admin'], request: { query: deadLetterQuery }, responses: { 200: json('The dead letters.', listOf('DeadLetter')) } }), async (ctx) => {
    const { query } = validateParts<{ query: { stream?: string; limit: number } }>({ query: [deadLetterQuery, ctx.query] });
    ctx.body = { data: (await listDeadLetters(connectedBus(), query)).map(deadLetterJson) };
  });

  // once the cause is fixed: back to their original subjects with their original headers, and out of DEAD_LETTER
  router.post(
    '/admin/dead-letters/replay',
    operation({
      operationId: 'replayDeadLetters',
      summary: 'Put dead letters back on their original subjects',
      tags: ['Admin'],
      request: { body: replayBody },
      responses: { 200: json('What was replayed.', { type: 'object', required: ['replayed', 'failed'], additionalProperties: false, properties: { replayed: { type: 'integer' }, failed: { type: 'integer' } } }) },
    }),
    async (ctx) => {
    const { body } = validateParts<{ body: { stream?: string; seqs?: number[] } }>({ body: [replayBody, ctx.request.body] });
    const res = await replayDeadLetters(connectedBus(), { ...body, limit: 1000 });
    logger.info({ ...res, stream: body.stream }, 'dead letters replayed');
    ctx.body = res;
    },
  );

  router.post(
    '/admin/tenants',
    operation({
      operationId: 'createTenant',
      summary: 'Create a tenant and its first API key',
      tags: ['Admin'],
      request: { body: createTenant },
      responses: { 201: json('The tenant and its key (shown once).', { type: 'object', required: ['tenant', 'api_key'], additionalProperties: false, properties: { tenant: ref('Tenant'), api_key: { type: 'string' } } }) },
      errors: [409],
    }),
    async (ctx) => {
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
    },
  );

  router.get('/admin/tenants/:id', operation({ operationId: 'adminGetTenant', summary: 'A tenant', tags: ['Admin'], request: { path: tenantPath }, responses: { 200: json('The tenant.', ref('Tenant')) }, errors: [404] }), async (ctx) => {
    const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
    ctx.body = tenantJson((await services.directory.getTenant({ tenantId: path.id })).tenant);
  });

  router.get('/admin/tenants/:id/api-keys', operation({ operationId: 'adminListApiKeys', summary: "A tenant's API keys", tags: ['Admin'], request: { path: tenantPath }, responses: { 200: json('The keys.', listOf('AdminApiKey')) }, errors: [404] }), async (ctx) => {
    const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
    const res = await services.directory.listApiKeys({ tenantId: path.id });
    ctx.body = {
      data: res.keys.map((k) => ({ prefix: k.prefix, created_at: k.createdAt, revoked_at: k.revokedAt ?? null, last_used_at: k.lastUsedAt ?? null })),
    };
  });

  router.post(
    '/admin/tenants/:id/api-keys',
    operation({
      operationId: 'adminCreateApiKey',
      summary: 'Add an API key to a tenant',
      tags: ['Admin'],
      request: { path: tenantPath },
      responses: { 201: json('The key (shown once).', { type: 'object', required: ['api_key', 'prefix'], additionalProperties: false, properties: { api_key: { type: 'string' }, prefix: { type: 'string' } } }) },
      errors: [404],
    }),
    async (ctx) => {
    const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
    const res = await services.directory.createApiKey({ tenantId: path.id });
    ctx.status = 201;
    ctx.body = { api_key: res.apiKey, prefix: res.prefix };
    },
  );

  router.delete('/admin/tenants/:id/api-keys/:prefix', operation({ operationId: 'adminRevokeApiKey', summary: "Revoke a tenant's API key", tags: ['Admin'], request: { path: keyPath }, responses: { 204: { description: 'Revoked.' } }, errors: [404] }), async (ctx) => {
    const { path } = validateParts<{ path: { id: string; prefix: string } }>({ path: [keyPath, ctx.params] });
    await services.directory.revokeApiKey({ tenantId: path.id, prefix: path.prefix });
    ctx.status = 204;
  });
};
