import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type Router from '@koa/router';
import { send } from '@koa/send';
import type { Context } from 'koa';
import { json, operation, ref } from '../openapi/operation';
import { assetPath, pagePath } from '../schemas/dashboard';

/**
 * Only the dashboard's own files run: no inline script or style, no other origin, no framing, no plugins.
 * Requests go to this origin only (the /api routes).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function secure(ctx: Context): void {
  ctx.set({
    'Content-Security-Policy': DASHBOARD_CSP,
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  });
}

/**
 * The built dashboard at /dashboard: hashed assets cached for good, every other path the single page (its
 * router shows the page), never cached so a new build is picked up at once.
 */
export function registerDashboardStatic(router: Router, dir: string): void {
  const root = resolve(dir);
  const index = resolve(root, 'index.html');

  const redirectOp = operation({
    operationId: 'openDashboard',
    summary: 'The dashboard (redirects to /dashboard/)',
    tags: ['Dashboard'],
    responses: {
      308: {
        description: 'To `/dashboard/` (a short note in the body, HTML or text as `Accept` asks).',
        contentType: ['text/html', 'text/plain'],
        schema: { type: 'string' },
        headers: { Location: { description: '`/dashboard/`', schema: { type: 'string' }, required: true } },
      },
    },
    hidden: true,
  });
  router.get('/dashboard', redirectOp, (ctx, next) => {
    // the router also matches /dashboard/ here (trailing slash)
    if (ctx.path !== '/dashboard') return next();
    ctx.status = 308;
    ctx.redirect('/dashboard/');
  });

  const assetOp = operation({
    operationId: 'getDashboardAsset',
    summary: 'A dashboard build file (hashed name, cached for good)',
    tags: ['Dashboard'],
    request: { path: assetPath },
    responses: {
      200: { description: 'The file (JavaScript, CSS, image, font).', contentType: '*/*', schema: {} },
      404: json('No such file.', ref('Error404')),
    },
    hidden: true,
  });
  router.get('/dashboard/assets/:file', assetOp, async (ctx) => {
    secure(ctx);
    const file = String(ctx.params.file);
    if (
      !/^[\w.-]+$/.test(file) ||
      !(await send(ctx, file, { root: resolve(root, 'assets'), immutable: true, maxage: 365 * 24 * 3600_000, gzip: false, brotli: false }).catch(
        () => undefined,
      ))
    ) {
      ctx.status = 404;
      ctx.body = { detail: 'Not found', code: 'not_found' };
    }
  });

  const pageOp = operation({
    operationId: 'getDashboardPage',
    summary: 'A dashboard page (the single page; its router shows the page named by the path, which may hold slashes)',
    tags: ['Dashboard'],
    request: { path: pagePath },
    responses: {
      200: { description: 'The page (HTML).', contentType: 'text/html', schema: { type: 'string' } },
      503: { description: 'The dashboard is not built.', contentType: 'text/plain', schema: { type: 'string' } },
    },
    hidden: true,
  });
  router.get('/dashboard/{*page}', pageOp, async (ctx) => {
    secure(ctx);
    ctx.set('Cache-Control', 'no-store');
    if (!existsSync(index)) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The dashboard is not built (nx run dashboard:build).';
      return;
    }
    await send(ctx, 'index.html', { root, gzip: false, brotli: false });
    ctx.set('Cache-Control', 'no-store');
  });
}
