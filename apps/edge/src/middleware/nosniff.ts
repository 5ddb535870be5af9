import type { Context, Next } from 'koa';

/**
 * `X-Content-Type-Options: nosniff` on every answer of the edge, whatever answers it (a route, the error mapping,
 * the unmatched-path 404, the provider's handshake, the document): a browser takes each body as the type it is
 * served with and never sniffs script or HTML out of a JSON or text answer. Set first, before anything can answer.
 */
export async function nosniff(ctx: Context, next: Next): Promise<void> {
  ctx.set('X-Content-Type-Options', 'nosniff');
  await next();
}
