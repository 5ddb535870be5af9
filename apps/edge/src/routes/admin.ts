import { pageDeadLetters, replayDeadLetters } from '@gateway/bus';
import { AppError } from '@gateway/errors';
import { ListCursors } from '../cursors';
import { AdminApiKey, AdminApiKeyCreated, DeadLetter, DeadLettersReplayed, listOf, pageOf, respond, Tenant, TenantCreated } from '../presenters';
import { createTenant, keyPath, tenantPath } from '../schemas/admin';
import { deadLetterQuery, replayBody } from '../schemas/dead-letters';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';
import { registerTenantAdminRoutes } from './admin-tenants';

const DeadLetters = pageOf(DeadLetter);
const AdminApiKeys = listOf(AdminApiKey);

/** Operator API (decisions.md), authorised by GATEWAY_ADMIN_TOKEN. */
/** Mounted under /admin behind adminAuth (see app.ts). */
export const registerAdminRoutes: RegisterRoutes = (router, deps) => {
  const { services, bus, logger, config } = deps;
  registerTenantAdminRoutes(router, deps);
  const cursors = new ListCursors(config.adminToken);
  const connectedBus = () => {
    if (!bus?.isConnected()) throw new AppError('unavailable', 'bus_unavailable', 'The event bus is unavailable');
    return bus;
  };

  // messages a durable consumer could not handle after its last delivery (libs/bus dead-letter.ts), oldest first
  router.get(
    '/admin/dead-letters',
    operation({
      operationId: 'listDeadLetters',
      summary: 'Messages a consumer gave up on, oldest first, a page at a time',
      description:
        'Oldest first: in the order they were set aside (`seq`, their sequence in DEAD_LETTER). The next page continues after the last letter of this one: letters set aside meanwhile come on later pages, replayed ones leave without shifting the rest. ' +
        'A cursor of another `stream` filter, or one altered, is a 422 (`cursor_invalid`).',
      tags: ['Admin'],
      request: { query: deadLetterQuery },
      responses: { 200: json('A page of dead letters.', DeadLetters) },
    }),
    async (ctx) => {
      const { query } = validateParts<{ query: { stream?: string; limit: number; cursor?: string } }>({ query: [deadLetterQuery, ctx.query] });
      const scope = ['dead-letters', query.stream ?? '*'];
      const after = cursors.open(scope, query.cursor);
      const page = await pageDeadLetters(connectedBus(), { stream: query.stream, limit: query.limit, after: after === undefined ? undefined : Number(after) });
      respond(ctx, DeadLetters, { items: page.letters, nextCursor: cursors.seal(scope, page.next === undefined ? undefined : String(page.next)) });
    },
  );

  // once the cause is fixed: back to their original subjects with their original headers, and out of DEAD_LETTER
  router.post(
    '/admin/dead-letters/replay',
    operation({
      operationId: 'replayDeadLetters',
      summary: 'Put dead letters back on their original subjects',
      tags: ['Admin'],
      request: { body: replayBody },
      responses: {
        200: json('What was replayed.', DeadLettersReplayed),
      },
    }),
    async (ctx) => {
      const { body } = validateParts<{ body: { stream?: string; seqs?: number[] } }>({ body: [replayBody, ctx.request.body] });
      const res = await replayDeadLetters(connectedBus(), { ...body, limit: 1000 });
      logger.info({ ...res, stream: body.stream }, 'dead letters replayed');
      respond(ctx, DeadLettersReplayed, res);
    },
  );

  router.post(
    '/admin/tenants',
    operation({
      operationId: 'createTenant',
      summary: 'Create a tenant and its first API key',
      tags: ['Admin'],
      request: { body: createTenant },
      responses: {
        201: json('The tenant and its key (shown once).', TenantCreated),
      },
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
      respond(ctx, TenantCreated, res, 201);
    },
  );

  router.get(
    '/admin/tenants/:id',
    operation({
      operationId: 'adminGetTenant',
      summary: 'A tenant',
      tags: ['Admin'],
      request: { path: tenantPath },
      responses: { 200: json('The tenant.', Tenant) },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
      respond(ctx, Tenant, (await services.directory.getTenant({ tenantId: path.id })).tenant);
    },
  );

  router.get(
    '/admin/tenants/:id/api-keys',
    operation({
      operationId: 'adminListApiKeys',
      summary: "A tenant's API keys",
      tags: ['Admin'],
      request: { path: tenantPath },
      responses: { 200: json('The keys.', AdminApiKeys) },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
      const res = await services.directory.listApiKeys({ tenantId: path.id });
      respond(ctx, AdminApiKeys, res.keys);
    },
  );

  router.post(
    '/admin/tenants/:id/api-keys',
    operation({
      operationId: 'adminCreateApiKey',
      summary: 'Add an API key to a tenant',
      tags: ['Admin'],
      request: { path: tenantPath },
      responses: {
        201: json('The key (shown once).', AdminApiKeyCreated),
      },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
      const res = await services.directory.createApiKey({ tenantId: path.id });
      respond(ctx, AdminApiKeyCreated, res, 201);
    },
  );

  router.delete(
    '/admin/tenants/:id/api-keys/:prefix',
    operation({
      operationId: 'adminRevokeApiKey',
      summary: "Revoke a tenant's API key",
      tags: ['Admin'],
      request: { path: keyPath },
      responses: { 204: { description: 'Revoked.' } },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string; prefix: string } }>({ path: [keyPath, ctx.params] });
      await services.directory.revokeApiKey({ tenantId: path.id, prefix: path.prefix });
      ctx.status = 204;
    },
  );
};
