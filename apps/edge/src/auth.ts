import type { Context, Next } from 'koa';
import { AppError } from '@gateway/errors';
import { constantTimeEqual, sha256Hex } from '@gateway/crypto';
import { LookupCache } from '@gateway/runtime';
import type { Services } from './services';

declare module 'koa' {
  interface DefaultState {
    tenantId?: string;
  }
}

const unauthorized = () => new AppError('unauthenticated', 'unauthorized', 'Missing or invalid bearer token');

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
  private readonly cache: LookupCache<string, string | null>;

  constructor(private readonly services: Services, ttlMs: number, maxEntries = 10_000) {
    this.cache = new LookupCache({ ttlMs: ttlMs / 2, staleMs: ttlMs, maxEntries });
  }

  /** A key of the tenant was revoked (a change notice): every cached key of the tenant is asked again. */
  dropTenant(tenantId: string): void {
    this.cache.deleteWhere((_hash, tenant) => tenant === tenantId);
  }

  clear(): void {
    this.cache.clear();
  }

  async tenantFor(apiKey: string): Promise<string> {
    const tenantId = await this.cache.get(sha256Hex(apiKey), () => this.lookup(apiKey));
    if (!tenantId) throw unauthorized();
    return tenantId;
  }

  /** The key's tenant, or null for a key the directory refuses; other failures throw (and are not cached). */
  private async lookup(apiKey: string): Promise<string | null> {
    try {
      return (await this.services.directory.authenticateApiKey({ apiKey })).tenantId;
    } catch (e) {
      if ((e as AppError).kind !== 'unauthenticated') throw e;
      return null;
    }
  }
}

export function tenantAuth(cache: ApiKeyCache, adminToken: string) {
  return async (ctx: Context, next: Next) => {
    const token = bearerToken(ctx);
    // the admin token is not a tenant credential
    if (constantTimeEqual(token, adminToken)) throw unauthorized();
    ctx.state.tenantId = await cache.tenantFor(token);
    await next();
  };
}

export function adminAuth(adminToken: string) {
  return async (ctx: Context, next: Next) => {
    if (!constantTimeEqual(bearerToken(ctx), adminToken)) throw unauthorized();
    await next();
  };
}

export function tenantOf(ctx: Context): string {
  const t = ctx.state.tenantId;
  if (!t) throw unauthorized();
  return t;
}
