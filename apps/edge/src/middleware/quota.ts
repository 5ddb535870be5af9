import type { Context, Next } from 'koa';
import type { business } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import { MESSAGE_KINDS } from '@gateway/message-kinds';
import { tenantOf } from '../auth';
import type { BusinessCalls } from '../business-calls';

/** The sends: counted against the plan's sends per second and per day as well as its requests per second. */
const SEND_PATHS = new Set(MESSAGE_KINDS.map((k) => `/api/messaging/${k.path}`));

export const isSend = (ctx: Context) => ctx.method === 'POST' && SEND_PATHS.has(ctx.path);

/** A campaign's creation: counted against the plan's campaigns per day (a scheduled one starts by itself). */
export const isCampaignCreation = (ctx: Context) => ctx.method === 'POST' && (ctx.path === '/api/campaigns' || ctx.path === '/api/campaigns/');

/** A daily quota refuses with `quota_exceeded`, a per-second rate with `rate_limited`. */
const DAILY = new Set(['sends_per_day', 'campaigns_per_day']);

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy` names each limit
 * the request was counted against with its quota `q` and window `w` (seconds), `RateLimit` what is left of it
 * (`r`) and when its window ends (`t`, seconds).
 */
export function rateLimitHeaders(limits: business.Limit[]): { policy: string; limit: string } {
  return {
    policy: limits.map((l) => `"${l.name}";q=${l.quota};w=${l.windowSeconds}`).join(', '),
    limit: limits.map((l) => `"${l.name}";r=${l.remaining};t=${l.resetSeconds}`).join(', '),
  };
}

/**
 * After authentication, before anything else: the request is counted against the tenant's plan in the tenant
 * directory (shared by every edge replica), its answer carries the RateLimit header fields, and a request over a
 * limit is a 429 with `Retry-After` (a suspended tenant: 403 `tenant_suspended`). The admissions of requests that
 * arrive together go in one call with the audit entries (business-calls.ts).
 */
export function quotaGate(business: BusinessCalls) {
  return async (ctx: Context, next: Next) => {
    const res = await business.admit({
      tenantId: tenantOf(ctx),
      send: isSend(ctx),
      campaign: isCampaignCreation(ctx),
      apiKeyPrefix: ctx.state.apiKeyPrefix ?? '',
    });
    // for scopeGate (scopes.ts): what the key may do and reach
    ctx.state.scopes = res.scopes;
    ctx.state.clientIds = res.clientIds;
    const h = rateLimitHeaders(res.limits);
    ctx.set('RateLimit-Policy', h.policy);
    ctx.set('RateLimit', h.limit);
    if (res.refusedBy) {
      const l = res.limits.find((x) => x.name === res.refusedBy);
      const message = `Over the ${res.plan} plan's limit "${res.refusedBy}" (${l?.quota} per ${l?.windowSeconds} s)`;
      const options = { retryAfterSeconds: Number(l?.resetSeconds ?? 1), details: { limit: res.refusedBy } };
      if (DAILY.has(res.refusedBy)) throw new AppError('rate_limited', 'quota_exceeded', message, options);
      throw new AppError('rate_limited', 'rate_limited', message, options);
    }
    await next();
  };
}
