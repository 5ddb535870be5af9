import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { AppError } from '@gateway/errors';

/**
 * After the router: a path the router knows, asked with a method it does not serve, is a 405 with `Allow`
 * (whatever the method, even one HTTP does not define); an unknown path stays a 404. Replaces
 * `router.allowedMethods()`, which answers a 501 with an empty body for methods it has never heard of.
 */
export function allowedMethods(router: Router) {
  return async (ctx: Context, next: Next) => {
    await next();
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const allowed = new Set<string>();
    for (const layer of router.match(ctx.path, ctx.method).path) for (const m of layer.methods) allowed.add(m);
    if (allowed.size === 0) return;
    if (allowed.has('GET')) allowed.add('HEAD');
    const allow = [...allowed].sort().join(', ');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      ctx.set('Allow', allow);
      return;
    }
    ctx.set('Allow', allow);
    throw new AppError('method_not_allowed', 'method_not_allowed', `Method ${ctx.method} is not allowed here; allowed: ${allow}`);
  };
}
