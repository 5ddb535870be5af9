import type { Context, Next } from 'koa';
import { AppError } from '@gateway/errors';
import { secretMatcher, sha256Hex } from '@gateway/crypto';
import { LookupCache } from '@gateway/runtime';
import type { Services } from './services';

declare module 'koa' {
  interface DefaultState {
    tenantId?: string;
    /** Prefix of the API key behind the request (the bearer key, or the key a dashboard session was opened with). */
    apiKeyPrefix?: string;
  }
}

export interface KeyPrincipal {
  tenantId: string;
  prefix: string;
}

export const unauthorized = () => new AppError('unauthenticated', 'unauthorized', 'Missing or invalid bearer token');

export function bearerToken(ctx: Context): string {
  const header = ctx.get('authorization');
  const m = /^Bearer ([\x21-\x7e]{1,512})$/.exec(header);
  if (!m) throw unauthorized();
  return m[1];
}

/**
 * API key → tenant, cached so a warm key costs no gRPC round trip. A revocation's change notice drops the
 * tenant's entries at once; otherwise an entry is served for `ttlMs` (≤ 5 s, the fallback when notices are
 * not arriving); past half its age it is refreshed in the background, so hot keys never wait.
 * Unknown and revoked keys are cached too (as null). Keys are held by their hash, never in plaintext.
 */
export class ApiKeyCache {
  private readonly cache: LookupCache<string, KeyPrincipal | null>;

  constructor(
    private readonly services: Services,
    ttlMs: number,
    maxEntries = 10_000,
  ) {
    this.cache = new LookupCache({ ttlMs: ttlMs / 2, staleMs: ttlMs, maxEntries });
  }

  /** A key of the tenant was revoked (a change notice): every cached key of the tenant is asked again. */
  dropTenant(tenantId: string): void {
    this.cache.deleteWhere((_hash, principal) => principal?.tenantId === tenantId);
  }

  clear(): void {
    this.cache.clear();
  }

  async principalFor(apiKey: string): Promise<KeyPrincipal> {
    const principal = await this.cache.get(sha256Hex(apiKey), () => this.lookup(apiKey));
    if (!principal) throw unauthorized();
    return principal;
  }

  /** The key's tenant and prefix, or null for a key the directory refuses; other failures throw (and are not cached). */
  private async lookup(apiKey: string): Promise<KeyPrincipal | null> {
    try {
      const res = await this.services.directory.authenticateApiKey({ apiKey });
      return { tenantId: res.tenantId, prefix: res.prefix };
    } catch (e) {
      if ((e as AppError).kind !== 'unauthenticated') throw e;
      return null;
    }
  }
}

/**
 * A tenant principal from the bearer API key or, for the dashboard, from its session cookie (which resolves
 * to the same tenant and key; see dashboard/session-auth.ts). A bearer header wins over a cookie.
 */
export function tenantAuth(cache: ApiKeyCache, adminToken: string, session?: (ctx: Context) => Promise<KeyPrincipal | undefined>) {
  const isAdminToken = secretMatcher(adminToken);
  return async (ctx: Context, next: Next) => {
    let principal: KeyPrincipal | undefined;
    if (!ctx.get('authorization') && session) principal = await session(ctx);
    ctx.state.viaSession = principal !== undefined;
    if (!principal) {
      const token = bearerToken(ctx);
      // the admin token is not a tenant credential
      if (isAdminToken(token)) throw unauthorized();
      principal = await cache.principalFor(token);
    }
    ctx.state.tenantId = principal.tenantId;
    ctx.state.apiKeyPrefix = principal.prefix;
    await next();
  };
}

export function adminAuth(adminToken: string) {
  const isAdminToken = secretMatcher(adminToken);
  return async (ctx: Context, next: Next) => {
    if (!isAdminToken(bearerToken(ctx))) throw unauthorized();
    await next();
  };
}

export function tenantOf(ctx: Context): string {
  const t = ctx.state.tenantId;
  if (!t) throw unauthorized();
  return t;
}
