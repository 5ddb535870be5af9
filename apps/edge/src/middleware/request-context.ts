import type { Context, Next } from 'koa';
import { toAppError } from '@gateway/errors';
import { normalizeRequestId, runWithContext, type Logger } from '@gateway/logger';
import { setHttpRoute } from '@gateway/telemetry';
import { toHttpError } from '../http-errors';

/**
 * Request id in and out, one access log line per request (with the request's trace id when tracing is on), the
 * route template on the request's span, and the single error → HTTP mapping.
 */
export function requestContext(logger: Logger, observe?: (route: string, method: string, status: number, ms: number) => void) {
  return async (ctx: Context, next: Next) => {
    const requestId = normalizeRequestId(ctx.get('x-request-id'));
    ctx.set('X-Request-Id', requestId);
    const started = performance.now();
    await runWithContext({ requestId }, async () => {
      try {
        await next();
        if (ctx.status === 404 && ctx.body === undefined) {
          ctx.status = 404;
          ctx.body = { detail: 'Not Found', code: 'route_not_found' };
        }
      } catch (e) {
        const err = toAppError(e);
        if (err.kind === 'internal') logger.error({ err: e, method: ctx.method, path: ctx.path }, 'request failed');
        const res = toHttpError(err);
        ctx.status = res.status;
        ctx.set(res.headers);
        ctx.body = res.body;
      }
      const ms = performance.now() - started;
      const matched = (ctx as Context & { _matchedRoute?: string })._matchedRoute;
      if (matched) setHttpRoute(String(matched));
      const route = matched ?? 'unmatched';
      observe?.(String(route), ctx.method, ctx.status, ms);
      logger.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
    });
  };
}
