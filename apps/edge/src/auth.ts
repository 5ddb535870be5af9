import type { Context, Next } from 'koa';
import { AppError } from '@gateway/errors';
import { constantTimeEqual, sha256Hex } from '@gateway/crypto';
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

interface Entry {
  tenantId: string | null; // null: a key known to be invalid
  fetchedAt: number;
  refreshing?: Promise<void>;
}

/**
 * API key → tenant, cached so a warm key costs no gRPC round trip. An entry is served for `ttlMs` (≤ 5 s,
 * the revocation promise); past half its age it is refreshed in the background, so hot keys never wait.
 * Keys are held by their hash, never in plaintext.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly services: Services, private readonly ttlMs: number, private readonly maxEntries = 10_000) {}

  async tenantFor(apiKey: string): Promise<string> {
    const h = sha256Hex(apiKey);
    const now = Date.now();
    const e = this.entries.get(h);
    if (e && now - e.fetchedAt < this.ttlMs) {
      if (now - e.fetchedAt > this.ttlMs / 2 && !e.refreshing) {
        e.refreshing = this.fetch(h, apiKey).catch(() => undefined);
      }
      if (e.tenantId === null) throw unauthorized();
      return e.tenantId;
    }
    await this.fetch(h, apiKey);
    const fresh = this.entries.get(h);
    if (!fresh?.tenantId) throw unauthorized();
    return fresh.tenantId;
  }

  private async fetch(h: string, apiKey: string): Promise<void> {
    let tenantId: string | null;
    try {
      tenantId = (await this.services.directory.authenticateApiKey({ apiKey })).tenantId;
    } catch (e) {
      if ((e as AppError).kind !== 'unauthenticated') {
        this.entries.delete(h);
        throw e;
      }
      tenantId = null;
    }
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(h, { tenantId, fetchedAt: Date.now() });
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
