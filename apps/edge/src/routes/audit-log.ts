import type Router from '@koa/router';
import type { Context } from 'koa';
import { tenantOf } from '../auth';
import { ListCursors } from '../cursors';
import { AuditEntry, pageOf, respond } from '../presenters';
import { auditQuery } from '../schemas/admin';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes, RouteDeps } from './context';

const AuditEntries = pageOf(AuditEntry);

interface AuditQuery {
  action?: string;
  actor?: string;
  limit: number;
  cursor?: string;
}

function lister({ services, config }: RouteDeps, tenantOfRequest: (ctx: Context) => string | undefined) {
  const cursors = new ListCursors(config.adminToken);
  return async (ctx: Context) => {
    const { query } = validateParts<{ query: AuditQuery }>({ query: [auditQuery, ctx.query] });
    const tenantId = tenantOfRequest(ctx);
    const scope = ['audit-log', tenantId ?? '*', query.action ?? '', query.actor ?? ''];
    const res = await services.business.listAuditLog({
      tenantId,
      action: query.action,
      actor: query.actor,
      limit: query.limit,
      cursor: cursors.open(scope, query.cursor),
    });
    respond(ctx, AuditEntries, { items: res.entries, nextCursor: cursors.seal(scope, res.nextCursor) });
  };
}

/** GET /api/audit-log: what the tenant's keys and sessions changed, newest first. */
export const registerAuditLogRoutes: RegisterRoutes = (router, deps) => {
  router.get(
    '/api/audit-log',
    operation({
      operationId: 'listAuditLog',
      summary: "The tenant's audit log, newest first",
      description:
        'One entry per state-changing request made with one of its keys or dashboard sessions: the actor (key prefix), the operation, the object, the answer. Filter by `action` (operationId) and `actor`.',
      tags: ['Tenant'],
      request: { query: auditQuery },
      responses: { 200: json('A page of entries.', AuditEntries) },
    }),
    lister(deps, (ctx) => tenantOf(ctx)),
  );
};

/** GET /admin/audit-log: every entry, the operators' own actions included. */
export function registerAdminAuditLogRoutes(router: Router, deps: RouteDeps): void {
  router.get(
    '/admin/audit-log',
    operation({
      operationId: 'adminListAuditLog',
      summary: 'The whole audit log (tenants and operators), newest first',
      tags: ['Admin'],
      request: { query: auditQuery },
      responses: { 200: json('A page of entries.', AuditEntries) },
    }),
    lister(deps, () => undefined),
  );
}
