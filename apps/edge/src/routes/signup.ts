import { randomBytes } from 'node:crypto';
import { constantTimeEqual } from '@gateway/crypto';
import type { Context } from 'koa';
import { AppError, isAppError } from '@gateway/errors';
import { jsonBody } from '../middleware/body';
import { completeBody, failBody, signupPath, type CompleteBody, type FailBody } from '../schemas/signup';
import { OpenLimiter } from '../signup-page/open-limiter';
import { renderMessagePage, renderSignupPage } from '../signup-page/render';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import { respond, SignupOutcome } from '../presenters';
import type { RegisterRoutes } from './context';

/** The session's state token, kept by the browser so that reopening the page reuses its session. */
const STATE_COOKIE = 'gw_signup_state';

/**
 * Whether the request comes from the browser that opened this session's page: its HttpOnly, SameSite=Strict
 * cookie holds the same state token (compared in constant time). A state token alone (copied off a page, a log
 * or another device) is not enough to report a failure for the client.
 */
function fromPageSession(ctx: Context, state: string): boolean {
  const held = ctx.cookies.get(STATE_COOKIE);
  return !!held && constantTimeEqual(held, state);
}

/** A completion body is a few ids, a code and a state token. */
const BODY_LIMIT_BYTES = 16 * 1024;

/**
 * Inline code runs only with this response's nonce; scripts, frames and requests may reach the provider's
 * SDK host and web origins besides our own; nobody may frame the page (clickjacking).
 */
function pageCsp(nonce: string, sources: string[]): string {
  const provider = [...new Set(sources)].join(' ');
  return [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' ${provider}`,
    `style-src 'nonce-${nonce}'`,
    `connect-src 'self' ${provider}`,
    `frame-src ${provider}`,
    `img-src 'self' data: ${provider}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const messageCsp = (nonce: string) => `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

function sendHtml(ctx: Context, status: number, html: string, csp: string): void {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  // the page carries a session's state token (never cached: its operation is `noStore`), never sent on in a Referer
  ctx.set({ 'Content-Security-Policy': csp, 'Referrer-Policy': 'strict-origin' });
  ctx.body = html;
}

function sendMessage(ctx: Context, status: number, title: string, message: string, link?: { href: string; text: string }): void {
  const nonce = randomBytes(16).toString('base64');
  sendHtml(ctx, status, renderMessagePage(title, message, nonce, link), messageCsp(nonce));
}

/**
 * The hosted embedded-signup page (a client's embed_signup_url) and the two calls its script makes. Public:
 * no bearer; a completion is bound to the client by the state token of the session the page opened (and
 * proven by the provider's one-time code); a reported failure also needs that page's session cookie.
 */
export const registerSignupRoutes: RegisterRoutes = (router, { services, logger, config }) => {
  const limiter = new OpenLimiter(config.signupPageOpensPerMinute);
  const pageOp = operation({
    operationId: 'openSignupPage',
    summary: "The hosted embedded-signup page (a client's embed_signup_url)",
    tags: ['Signup'],
    request: { path: signupPath },
    responses: {
      200: { description: 'An HTML page.', contentType: 'text/html', schema: { type: 'string' } },
      404: { description: 'Unknown link (HTML).', contentType: 'text/html', schema: { type: 'string' } },
      429: { description: 'Opened too often from this address (HTML, `Retry-After`).', contentType: 'text/html', schema: { type: 'string' } },
      503: { description: 'Signup unavailable (HTML).', contentType: 'text/html', schema: { type: 'string' } },
    },
    hidden: true,
    noStore: true,
  });
  router.get('/signup/:client_id', pageOp, async (ctx) => {
    const notFound = () => sendMessage(ctx, 404, 'Signup link not found', 'This signup link is not valid. Ask the business that sent it for a new one.');
    const { error, value } = signupPath.validate(ctx.params);
    if (error) return notFound();
    const wait = limiter.take(ctx.ip);
    if (wait) {
      ctx.set('Retry-After', String(wait));
      return sendMessage(ctx, 429, 'Too many attempts', 'This page was opened too often from your network. Please try again in a minute.');
    }
    const clientId = (value as { client_id: string }).client_id;
    // the browser's own open session is reused: reopening the page stores nothing new
    const held = ctx.cookies.get(STATE_COOKIE);
    let res;
    try {
      res = await services.signup.startSignup({ clientId, state: held && /^[A-Za-z0-9_-]{16,128}$/.test(held) ? held : undefined });
    } catch (e) {
      if (isAppError(e) && e.kind === 'not_found') return notFound();
      logger.warn({ err: e }, 'signup page unavailable');
      return sendMessage(ctx, 503, 'Signup is temporarily unavailable', 'Please try again in a few minutes.');
    }
    const page = res.page!;
    if (res.alreadyCompleted) {
      const link = page.successRedirectUrl ? { href: page.successRedirectUrl, text: 'Continue' } : undefined;
      return sendMessage(
        ctx,
        200,
        'Signup already completed',
        `The business account of ${page.displayName} is already connected. There is nothing more to do.`,
        link,
      );
    }
    ctx.cookies.set(STATE_COOKIE, res.state, {
      path: `/signup/${clientId}`,
      expires: new Date(res.session!.expiresAt),
      httpOnly: true,
      sameSite: 'strict',
      secure: ctx.secure,
      overwrite: true,
    });
    const nonce = randomBytes(16).toString('base64');
    const html = renderSignupPage(
      {
        clientId: res.session!.clientId,
        displayName: page.displayName,
        state: res.state,
        appId: page.appId,
        configId: page.configId,
        apiVersion: page.apiVersion,
        sdkUrl: page.sdkUrl,
        providerOrigins: page.providerOrigins,
      },
      nonce,
    );
    sendHtml(ctx, 200, html, pageCsp(nonce, [new URL(page.sdkUrl).origin, ...page.providerOrigins]));
  });

  const signupErrors = [404, 409, 413, 415, 502, 503, 504];
  const completeOp = operation({
    operationId: 'completeSignup',
    summary: "The signup page's completion (what the provider's flow gave the page)",
    tags: ['Signup'],
    request: { path: signupPath, body: completeBody },
    responses: { 200: json('The outcome.', SignupOutcome) },
    errors: signupErrors,
    noStore: true,
  });
  router.post('/signup/:client_id/complete', completeOp, jsonBody(BODY_LIMIT_BYTES), async (ctx) => {
    const { path, body } = validateParts<{ path: { client_id: string }; body: CompleteBody }>({
      path: [signupPath, ctx.params],
      body: [completeBody, ctx.request.body],
    });
    const res = await services.signup.completeSignup({
      clientId: path.client_id,
      state: body.state,
      code: body.code,
      businessAccountId: body.business_account_id,
      phoneNumberId: body.phone_number_id,
      providerBusinessId: body.provider_business_id,
    });
    respond(ctx, SignupOutcome, { clientId: path.client_id, status: res.status, reason: res.failureReason, redirectUrl: res.redirectUrl });
  });

  const failOp = operation({
    operationId: 'failSignup',
    summary: "The signup page reports a failure of the provider's flow",
    tags: ['Signup'],
    description:
      'Only from the browser that opened the page: its session cookie must hold the same state token (`403 signup_page_session_required` otherwise).',
    request: { path: signupPath, body: failBody },
    responses: { 200: json('The outcome.', SignupOutcome) },
    errors: [...signupErrors, 403],
    noStore: true,
  });
  router.post('/signup/:client_id/fail', failOp, jsonBody(BODY_LIMIT_BYTES), async (ctx) => {
    const { path, body } = validateParts<{ path: { client_id: string }; body: FailBody }>({
      path: [signupPath, ctx.params],
      body: [failBody, ctx.request.body],
    });
    // only the page's own session may fail the signup: a link holder posting someone's state token may not
    if (!fromPageSession(ctx, body.state)) {
      throw new AppError('forbidden', 'signup_page_session_required', 'Only the signup page that opened this session can report its failure');
    }
    const res = await services.signup.failSignup({ clientId: path.client_id, state: body.state, reason: body.reason });
    respond(ctx, SignupOutcome, {
      clientId: path.client_id,
      status: 'failed',
      reason: res.session?.failureReason ?? body.reason,
      redirectUrl: res.redirectUrl,
    });
  });
};
