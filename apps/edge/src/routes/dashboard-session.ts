import type Router from '@koa/router';
import type { Context } from 'koa';
import type { tenantDirectory as td } from '@gateway/contracts';
import { isAppError } from '@gateway/errors';
import { unauthorized } from '../auth';
import { requireCsrf, type SessionAuth } from '../dashboard/session-auth';
import { jsonBody } from '../middleware/body';
import { respond, Session } from '../presenters';
import { signInBody } from '../schemas/dashboard';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RouteDeps } from './context';

/** A sign-in body is one key. */
const BODY_LIMIT_BYTES = 4 * 1024;

/**
 * Dashboard sign-in and sign-out. POST exchanges an API key for a server-side session (the key is never kept
 * by the browser: it is only in this request's body); the answer carries the CSRF token the page sends back on
 * every state-changing request. GET tells the page who is signed in (and the CSRF token again after a reload).
 * DELETE ends the session server-side. JSON bodies only, so no form of another site can sign anyone in.
 */
export function registerDashboardSessionRoutes(router: Router, { services }: RouteDeps, auth: SessionAuth): void {
  const sessionErrors = [401, 413, 415, 503, 504];
  const signInOp = operation({
    operationId: 'signIn',
    summary: 'Dashboard sign-in: exchange an API key for a session cookie',
    tags: ['Dashboard'],
    request: { body: signInBody },
    responses: { 201: json('The session (its CSRF token; the session token is only in the HttpOnly cookie).', Session) },
    // 403 tenant_suspended: the key's tenant is suspended by an operator
    errors: [...sessionErrors, 403],
  });
  router.post('/dashboard/session', signInOp, jsonBody(BODY_LIMIT_BYTES), async (ctx) => {
    const { body } = validateParts<{ body: { api_key: string } }>({ body: [signInBody, ctx.request.body] });
    const res = await services.directory.createSession({ apiKey: body.api_key });
    auth.cookie.set(ctx, res.sessionToken, new Date(res.session!.expiresAt));
    respond(ctx, Session, res.session, 201);
  });

  const getOp = operation({
    operationId: 'getSession',
    summary: 'Who is signed in',
    tags: ['Dashboard'],
    security: 'session',
    responses: { 200: json('The session.', Session) },
    errors: [503, 504],
  });
  router.get('/dashboard/session', getOp, async (ctx) => {
    respond(ctx, Session, await liveSession(ctx, auth));
  });

  const signOutOp = operation({
    operationId: 'signOut',
    summary: 'Dashboard sign-out (ends the session server-side)',
    tags: ['Dashboard'],
    security: 'session',
    responses: { 204: { description: 'Signed out (also when the session had already ended).' } },
    errors: [403, 413, 415, 422, 503, 504],
    noStore: true,
  });
  router.delete('/dashboard/session', signOutOp, jsonBody(BODY_LIMIT_BYTES), async (ctx) => {
    const token = auth.cookie.read(ctx);
    const session = await liveSession(ctx, auth).catch((e: unknown) => {
      if (isAppError(e) && e.kind === 'unauthenticated') return undefined;
      throw e;
    });
    // an ended session needs no CSRF token to forget its cookie; a live one does to be ended
    if (session) {
      requireCsrf(ctx, session);
      await services.directory.endSession({ sessionToken: token! });
    }
    auth.cookie.clear(ctx);
    ctx.status = 204;
  });
}

/** The session of the request's cookie; a missing or ended one is a 401 that also drops the cookie. */
async function liveSession(ctx: Context, auth: SessionAuth): Promise<td.Session> {
  try {
    const s = await auth.session(ctx);
    if (!s) throw unauthorized();
    return s;
  } catch (e) {
    if (isAppError(e) && e.kind === 'unauthenticated') auth.cookie.clear(ctx);
    throw e;
  }
}
