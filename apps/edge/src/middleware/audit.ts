import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { toAppError } from '@gateway/errors';
import { currentRequestId, type Logger } from '@gateway/logger';
import { toHttpError } from '../http-errors';
import { layerSpec } from '../openapi/operation';
import { openApiPath } from '../openapi/document';
import type { BusinessCalls } from '../business-calls';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

declare module 'koa' {
  interface DefaultState {
    /** The tenant principal came from a dashboard session cookie (not a bearer key). */
    viaSession?: boolean;
  }
}

type Layer = Router['stack'][number];

/** The route a request will reach (its layer), without running it: what it is, and its parameters. */
function routeOf(router: Router, ctx: Context): { layer: Layer; params: Record<string, string> } | undefined {
  const layer = router.match(ctx.path, ctx.method).pathAndMethod.find((l) => l.methods.length > 0);
  if (!layer) return undefined;
  let params: Record<string, string> = {};
  try {
    params = layer.params(ctx.path, layer.captures(ctx.path), {}) as Record<string, string>;
  } catch {
    params = {};
  }
  return { layer, params };
}

/**
 * The audit log (issue 28): after authentication, every state-changing request to a route of `router` is
 * recorded once it is answered, whatever the answer: who (key prefix, session, or the operator), which operation
 * and route, the object it named (the route's last parameter, else the body's `client_id`, else the id of what it created), the status and error
 * code. Never a body, a header or a secret. A failure to record is logged; the answer stands. The answer waits for
 * its entry, which goes in one call with the entries and admissions of the requests that arrive together
 * (business-calls.ts).
 */
export function auditTrail(router: Router, business: BusinessCalls, logger: Logger, mount: 'api' | 'admin') {
  return async (ctx: Context, next: Next) => {
    if (READS.has(ctx.method)) return next();
    const route = routeOf(router, ctx);
    if (!route) return next();
    let status = 0;
    let code: string | undefined;
    try {
      await next();
      status = ctx.status;
    } catch (e) {
      const res = toHttpError(toAppError(e));
      status = res.status;
      code = res.body.code as string | undefined;
      throw e;
    } finally {
      const values = Object.values(route.params);
      const body = ctx.request.body as Record<string, unknown> | undefined;
      const bodyClient = body && typeof body === 'object' && typeof body.client_id === 'string' ? body.client_id : undefined;
      const answer = ctx.body as { id?: unknown; tenant?: { id?: string } } | undefined;
      const createdId = answer && typeof answer === 'object' && typeof answer.id === 'string' ? answer.id : undefined;
      const tenantId =
        mount === 'api' ? ctx.state.tenantId : route.params.id && String(route.layer.path).startsWith('/admin/tenants/') ? route.params.id : answer?.tenant?.id;
      const entry = {
        tenantId,
        actorKind: mount === 'admin' ? 'operator' : ctx.state.viaSession ? 'session' : 'api_key',
        actor: mount === 'admin' ? 'admin_token' : (ctx.state.apiKeyPrefix ?? ''),
        action: layerSpec(route.layer)?.operationId ?? `${ctx.method} ${openApiPath(String(route.layer.path))}`,
        method: ctx.method,
        route: openApiPath(String(route.layer.path)),
        targetId: values.length ? values[values.length - 1] : (bodyClient ?? createdId),
        status,
        code,
        requestId: currentRequestId() ?? '',
      };
      await business.recordAudit(entry).catch((e: Error) => logger.warn({ error: e.message, action: entry.action }, 'audit entry not recorded'));
    }
  };
}
