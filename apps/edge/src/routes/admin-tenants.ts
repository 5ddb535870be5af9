import type Router from '@koa/router';
import { ListCursors } from '../cursors';
import { AdminTenant as Tenant, pageOf, respond } from '../presenters';
import { patchTenant, tenantListQuery, tenantPath } from '../schemas/admin';
import type { Services } from '../services';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RouteDeps } from './context';
import { registerAdminAuditLogRoutes } from './audit-log';

const Tenants = pageOf(Tenant);

/** Every client id of a tenant (the directory's pages, newest first). */
async function clientIdsOf(services: Services, tenantId: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await services.directory.listClients({ tenantId, limit: 100, cursor });
    ids.push(...page.clients.map((c) => c.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}

/** The events held while the tenant was suspended (recorded `skipped`), delivered again: per client, every page. */
async function deliverHeld(services: Services, tenantId: string, since: string): Promise<number> {
  let replayed = 0;
  for (const clientId of await clientIdsOf(services, tenantId)) {
    for (;;) {
      const res = await services.dispatcher.replayDeliveries({ tenantId, clientId, status: 'skipped', since });
      replayed += res.replayed;
      if (!res.hasMore) break;
    }
  }
  return replayed;
}

/** Operators' tenant lifecycle (issue 28): list and search, change, suspend, resume, delete. Mounted under /admin. */
export function registerTenantAdminRoutes(router: Router, deps: RouteDeps): void {
  const { services, config, logger } = deps;
  registerAdminAuditLogRoutes(router, deps);
  const cursors = new ListCursors(config.adminToken);

  router.get(
    '/admin/tenants',
    operation({
      operationId: 'adminListTenants',
      summary: 'Tenants, newest first, searchable by name or email',
      tags: ['Admin'],
      request: { query: tenantListQuery },
      responses: { 200: json('A page of tenants.', Tenants) },
    }),
    async (ctx) => {
      const { query } = validateParts<{ query: { query?: string; limit: number; cursor?: string } }>({ query: [tenantListQuery, ctx.query] });
      const scope = ['tenants', query.query ?? ''];
      const res = await services.business.listTenants({ query: query.query, limit: query.limit, cursor: cursors.open(scope, query.cursor) });
      respond(ctx, Tenants, { items: res.tenants, nextCursor: cursors.seal(scope, res.nextCursor) });
    },
  );

  router.patch(
    '/admin/tenants/:id',
    operation({
      operationId: 'adminUpdateTenant',
      summary: "Change a tenant's name, email, plan or billing ids",
      description: 'A `plan` outside the catalogue (`PLANS`) is a 422 naming `plan`; the new limits apply from the next request.',
      tags: ['Admin'],
      request: { path: tenantPath, body: patchTenant },
      responses: { 200: json('The tenant.', Tenant) },
      errors: [404],
    }),
    async (ctx) => {
      const { path, body } = validateParts<{ path: { id: string }; body: Record<string, string | undefined> }>({
        path: [tenantPath, ctx.params],
        body: [patchTenant, ctx.request.body],
      });
      const res = await services.business.updateTenant({
        tenantId: path.id,
        name: body.name,
        email: body.email,
        plan: body.plan,
        billingCustomerId: body.billing_customer_id,
        billingSubscriptionId: body.billing_subscription_id,
      });
      respond(ctx, Tenant, res.tenant);
    },
  );

  router.post(
    '/admin/tenants/:id/suspend',
    operation({
      operationId: 'adminSuspendTenant',
      summary: 'Suspend a tenant',
      description:
        'From the next request its keys and dashboard sessions get `403 tenant_suspended`; its events are held (recorded, not sent) until it is resumed.',
      tags: ['Admin'],
      request: { path: tenantPath },
      responses: { 200: json('The tenant (`suspended_at` set).', Tenant) },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
      respond(ctx, Tenant, (await services.business.suspendTenant({ tenantId: path.id })).tenant);
    },
  );

  router.post(
    '/admin/tenants/:id/resume',
    operation({
      operationId: 'adminResumeTenant',
      summary: 'Resume a suspended tenant',
      description:
        "Its keys and sessions work again and the events held meanwhile are delivered. Repeating it delivers the last suspension's held events again (receivers dedupe on the event id).",
      tags: ['Admin'],
      request: { path: tenantPath },
      responses: { 200: json('The tenant.', Tenant) },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
      const res = await services.business.resumeTenant({ tenantId: path.id });
      if (res.suspendedSince) {
        const replayed = await deliverHeld(services, path.id, res.suspendedSince);
        logger.info({ tenantId: path.id, replayed }, 'tenant resumed: held events delivered');
      }
      respond(ctx, Tenant, res.tenant);
    },
  );

  router.delete(
    '/admin/tenants/:id',
    operation({
      operationId: 'adminDeleteTenant',
      summary: 'Delete a tenant and everything of it',
      description:
        'The tenant is suspended first (nothing new arrives), then every service erases each row of its tables that mentions the tenant or one of its clients (encrypted tokens and secrets included); the tenant directory last, so a failed delete can be repeated. Cannot be undone.',
      tags: ['Admin'],
      request: { path: tenantPath },
      responses: { 204: { description: 'Deleted.' } },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [tenantPath, ctx.params] });
      await services.business.suspendTenant({ tenantId: path.id });
      const clientIds = await clientIdsOf(services, path.id);
      const erased: Record<string, number> = {};
      for (const [name, svc] of Object.entries(services.tenantData)) {
        if (name === 'tenant-directory') continue;
        erased[name] = Number((await svc.eraseTenant({ tenantId: path.id, clientIds })).rows);
      }
      erased['tenant-directory'] = Number((await services.tenantData['tenant-directory'].eraseTenant({ tenantId: path.id, clientIds })).rows);
      logger.info({ tenantId: path.id, erased }, 'tenant deleted');
      ctx.status = 204;
    },
  );
}
