import Koa, { type Context, type Middleware, type Next } from 'koa';
import Router from '@koa/router';
import { adminAuth, tenantAuth } from './auth';
import { allowedMethods } from './middleware/allowed-methods';
import { clientAddress } from './middleware/client-address';
import { SessionAuth } from './dashboard/session-auth';
import { SessionCookie } from './dashboard/session-cookie';
import { registerDashboardStatic } from './dashboard/static';
import { jsonBody } from './middleware/body';
import { nosniff } from './middleware/nosniff';
import { quotaGate } from './middleware/quota';
import { auditTrail } from './middleware/audit';
import { BusinessCalls } from './business-calls';
import { scopeGate } from './scopes';
import { requestContext } from './middleware/request-context';
import { storableParams } from './middleware/storable-params';
import { registerAdminRoutes } from './routes/admin';
import { registerDashboardSessionRoutes } from './routes/dashboard-session';
import type { RegisterRoutes, RouteDeps } from './routes/context';
import { registerHealthRoutes } from './routes/health';
import { registerReferenceRoutes } from './routes/reference';
import type { MountedRouter } from './openapi/document';
import { keepDescriptions } from './openapi/operation';
import { isCampaignCsvUpload } from './routes/campaigns';
import { MEDIA_UPLOAD_ROUTE } from './routes/media';
import { tenantApiRoutes } from './routes';

export interface EdgeAppOptions extends RouteDeps {
  observe?: (route: string, method: string, status: number, ms: number) => void;
  /** Routes outside /api and /admin (inbound provider webhooks, hosted signup page); they read bodies themselves. */
  publicRoutes?: RegisterRoutes[];
}

/** Runs a chain of middleware for the paths under `prefix` only. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- router middleware types differ only in context extensions
function mountUnder(prefix: string, chain: Array<Middleware<any, any>>): Middleware {
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) return next();
    const run = (i: number): Promise<void> => (i < chain.length ? Promise.resolve(chain[i](ctx as never, () => run(i + 1))) : Promise.resolve());
    await run(0);
  };
}

export interface RouteInfo {
  method: string;
  /** The router's template, e.g. `/api/clients/:id`. */
  path: string;
}

const routersOf = new WeakMap<Koa, MountedRouter[]>();

/** The app's routers and where each is mounted (the OpenAPI document is built from them). */
export function mountedRouters(app: Koa): MountedRouter[] {
  return routersOf.get(app) ?? [];
}

/** Every route the app serves (from its routers, so a new route is listed without more code): for tests and docs. */
export function routesOf(app: Koa): RouteInfo[] {
  const out: RouteInfo[] = [];
  for (const { router } of routersOf.get(app) ?? []) {
    for (const layer of router.stack) for (const method of layer.methods) if (method !== 'HEAD') out.push({ method, path: String(layer.path) });
  }
  return out;
}

/** The one /api route with its own body reader and limit (multipart, up to the largest media the provider takes). */
const isMediaUpload = (ctx: Context) => ctx.method === MEDIA_UPLOAD_ROUTE.method && ctx.path === MEDIA_UPLOAD_ROUTE.path;
/** Routes that read their own body: the media upload, and a campaign's CSV of recipients (streamed). */
const readsOwnBody = (ctx: Context) => isMediaUpload(ctx) || isCampaignCsvUpload(ctx);

export function createEdgeApp(opts: EdgeAppOptions): Koa {
  // forwarded headers are believed from TRUSTED_PROXIES only: clientAddress drops them from any other peer
  const app = new Koa({ proxy: true });
  // what fails after the answer started (a streamed media download broken off): logged, the connection closed
  app.on('error', (err: { code?: string; message?: string }, ctx?: Context) => {
    opts.logger.warn({ code: err?.code, error: err?.message, method: ctx?.method, path: ctx?.path }, 'response stream failed');
  });
  app.use(clientAddress(opts.config.trustedProxies));
  app.use(nosniff);
  app.use(requestContext(opts.logger, opts.observe));

  // the dashboard signs in with a key and then calls /api with its session cookie (+ CSRF token)
  const sessions = new SessionAuth(opts.services, new SessionCookie(opts.config.publicBaseUrl));
  const publicRouter = new Router();
  registerHealthRoutes(publicRouter, opts);
  for (const register of opts.publicRoutes ?? []) register(publicRouter, opts);
  registerDashboardSessionRoutes(publicRouter, opts, sessions);
  registerDashboardStatic(publicRouter, opts.config.dashboardDir);
  registerReferenceRoutes(publicRouter, () => mountedRouters(app), opts.config.publicBaseUrl);
  // before app.use: with tracing on, the Koa instrumentation wraps this router's middleware (not those mounted below)
  keepDescriptions(publicRouter);
  app.use(publicRouter.routes());

  // admissions and audit entries of requests that arrive together: one call to the tenant directory
  const business = new BusinessCalls(opts.services.business, opts.logger);
  const admin = new Router();
  registerAdminRoutes(admin, opts);
  app.use(
    mountUnder('/admin', [
      adminAuth(opts.config.adminToken),
      auditTrail(admin, business, opts.logger, 'admin'),
      storableParams,
      jsonBody(opts.config.bodyLimitBytes, { timeoutMs: opts.config.bodyTimeoutMs }),
      allowedMethods(admin),
      admin.routes(),
    ]),
  );

  const api = new Router();
  for (const register of tenantApiRoutes) register(api, opts);
  app.use(
    mountUnder('/api', [
      tenantAuth(opts.keys, opts.config.adminToken, sessions.principal),
      auditTrail(api, business, opts.logger, 'api'),
      quotaGate(business),
      storableParams,
      jsonBody(opts.config.bodyLimitBytes, { timeoutMs: opts.config.bodyTimeoutMs, ownBody: readsOwnBody }),
      allowedMethods(api),
      scopeGate,
      api.routes(),
    ]),
  );
  routersOf.set(app, [
    { router: publicRouter, mount: 'public' },
    { router: admin, mount: 'admin' },
    { router: api, mount: 'api' },
  ]);
  return app;
}
