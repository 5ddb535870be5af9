import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { AppError } from '@gateway/errors';
import { buildOpenApiDocument, type MountedRouter } from '../openapi/document';
import { operation } from '../openapi/operation';
import { docsFile } from '../schemas/reference';

/** The API's version in the document (`info.version`). */
export const API_VERSION = '1.0.0';

/**
 * The <style> elements Scalar's standalone bundle injects at run time (its stylesheet, its theme, its toasts'
 * styles; one is created empty first): their contents are fixed per version, so each is allowed by its hash and no
 * other inline stylesheet is. Pinned for SCALAR_VERSION: after an upgrade docs-browser.test.ts fails naming the
 * new hashes (the browser's CSP errors carry them).
 */
export const SCALAR_VERSION = '1.72.1';
const SCALAR_STYLE_HASHES = [
  'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
  'sha256-DLlkYCuDYGe6ME23YkUFB7Tc36rGDeo4mVBFbZX3uaU=',
  'sha256-ZW1GSuo0pKyEx5Ar7ZC5Dflb/mjatjeTW9aVx0iZAzE=',
  'sha256-d7niGYA9R/xp7r1pyc/+3ntTepKCabnrqd2exao76s4=',
  'sha256-rO+6k1mDRASa9Q8IQu9I3bF+bjRdxDreAZCyGSaxzeI=',
];

/**
 * The reference page runs only the renderer's bundle and its start script, both from this origin: no inline or
 * evaluated script, no request to another origin (the document comes from /openapi.json), no framing. Stylesheets:
 * this origin's and the renderer's own injected ones (by hash); style attributes are allowed (the renderer sets
 * them on the elements it builds; CSS cannot run script).
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' ${SCALAR_STYLE_HASHES.map((h) => `'${h}'`).join(' ')}`,
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Scalar's standalone bundle: beside the edge's bundle in an image (scripts/build-app.mjs copies it), else from
 * node_modules. Nothing is fetched from a CDN.
 */
function rendererFile(): string {
  const bundled = join(__dirname, 'api-reference', 'standalone.js');
  if (existsSync(bundled)) return bundled;
  return join(dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js');
}

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Business messaging gateway</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="app"></div>
<script src="/docs/scalar.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

/** Scalar's configuration: the document of this origin, no fonts or proxies of Scalar's own hosts, no telemetry, no AI agent. */
const INIT = `Scalar.createApiReference('#app', ${JSON.stringify({
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  showToolbar: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  documentDownloadType: 'json',
})});\n`;

function secure(ctx: Context): void {
  ctx.set({
    'Content-Security-Policy': DOCS_CSP,
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
  });
}

/**
 * GET /openapi.json (the OpenAPI 3.1 document of every route the app's routers serve, built once from their
 * descriptions) and GET /docs (a browsable reference of it). Public.
 */
export function registerReferenceRoutes(router: Router, routers: () => MountedRouter[], serverUrl: string): void {
  let doc: string | undefined;
  let renderer: Buffer | undefined;

  router.get(
    '/openapi.json',
    operation({
      operationId: 'getOpenApiDocument',
      summary: 'This document (OpenAPI 3.1)',
      tags: ['Reference'],
      responses: {
        200: { description: 'The OpenAPI document.', schema: { type: 'object', required: ['openapi'], properties: { openapi: { const: '3.1.0' } } } },
      },
    }),
    (ctx) => {
      doc ??= JSON.stringify(buildOpenApiDocument(routers(), { serverUrl, version: API_VERSION }));
      ctx.set('Cache-Control', 'no-cache');
      ctx.set('Access-Control-Allow-Origin', '*');
      ctx.type = 'application/json';
      ctx.body = doc;
    },
  );

  router.get(
    '/docs',
    operation({
      operationId: 'getApiReference',
      summary: 'The browsable API reference (HTML)',
      tags: ['Reference'],
      responses: { 200: { description: 'The reference page.', contentType: 'text/html', schema: { type: 'string' } } },
      hidden: true,
    }),
    (ctx, next) => {
      // the router also matches /docs/ here (trailing slash)
      if (ctx.path !== '/docs' && ctx.path !== '/docs/') return next();
      secure(ctx);
      ctx.set('Cache-Control', 'no-cache');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = PAGE;
    },
  );

  router.get(
    '/docs/:file',
    operation({
      operationId: 'getApiReferenceScript',
      summary: "The reference page's scripts (`scalar.js`, the renderer; `init.js`, its configuration)",
      tags: ['Reference'],
      request: { path: docsFile },
      responses: {
        200: { description: 'JavaScript.', contentType: 'text/javascript', schema: { type: 'string' } },
        404: { description: 'No such file.', schema: { $ref: '#/components/schemas/Error404' } },
      },
      hidden: true,
    }),
    (ctx) => {
      secure(ctx);
      const file = String(ctx.params.file);
      if (file !== 'scalar.js' && file !== 'init.js') {
        throw AppError.notFound('not_found', 'Not found');
      }
      ctx.type = 'text/javascript; charset=utf-8';
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = file === 'init.js' ? INIT : (renderer ??= readFileSync(rendererFile()));
    },
  );
}
