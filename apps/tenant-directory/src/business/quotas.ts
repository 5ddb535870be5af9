import type { MessageInitShape } from '@bufbuild/protobuf';
import type { business } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import type { Db, Queryable } from '@gateway/store';
import { limitsOf, type Plan, type PlanCatalogue } from './plans';

type LimitInit = MessageInitShape<typeof business.LimitSchema>;

const DAY_MS = 86_400_000;

/** One counted limit: its name (the RateLimit policy's), its window and the plan field giving its quota. */
interface Counter {
  name: 'requests' | 'sends' | 'sends_per_day';
  windowMs: number;
  quota: keyof Plan;
}

const REQUESTS: Counter = { name: 'requests', windowMs: 1000, quota: 'requests_per_second' };
const SENDS: Counter = { name: 'sends', windowMs: 1000, quota: 'sends_per_second' };
const SENDS_PER_DAY: Counter = { name: 'sends_per_day', windowMs: DAY_MS, quota: 'sends_per_day' };

/** While a client limit refuses, how long a tenant is asked to wait (a client must be deleted or the plan changed first). */
export const CLIENT_LIMIT_RETRY_SECONDS = 3600;

function windowOf(c: Counter, now: number) {
  const start = Math.floor(now / c.windowMs) * c.windowMs;
  return { start: new Date(start), resetSeconds: Math.max(1, Math.ceil((start + c.windowMs - now) / 1000)) };
}

export const tenantSuspended = () => new AppError('forbidden', 'tenant_suspended', 'This tenant is suspended: ask the operator');

/**
 * Quotas and rate limits, counted in the tenant directory's database (`usage_counters`: one row per tenant, limit
 * and fixed window), so every edge replica counts against the same numbers. A count is one conditional upsert:
 * a request over its limit is refused without being counted.
 */
export class Quotas {
  constructor(
    private readonly db: Db,
    private readonly plans: PlanCatalogue,
    private readonly now: () => number = Date.now,
  ) {}

  private async tenant(q: Queryable, tenantId: string, lock = false): Promise<{ plan: string; suspended_at: Date | null }> {
    const row = (
      await q.query<{ plan: string; suspended_at: Date | null }>(`SELECT plan, suspended_at FROM tenants WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [tenantId])
    )[0];
    if (!row) throw AppError.notFound('tenant_not_found', 'Tenant not found');
    return row;
  }

  /** Counts one more against `c`, unless that would pass `quota`: the count after, or undefined when refused. */
  private async take(q: Queryable, tenantId: string, c: Counter, quota: number, at: number): Promise<number | undefined> {
    const rows = await q.query<{ used: number }>(
      `INSERT INTO usage_counters (tenant_id, name, window_start, used) VALUES ($1, $2, $3, 1)
       ON CONFLICT (tenant_id, name, window_start) DO UPDATE SET used = usage_counters.used + 1 WHERE usage_counters.used < $4
       RETURNING used`,
      [tenantId, c.name, windowOf(c, at).start, quota],
    );
    return rows[0]?.used;
  }

  private async used(q: Queryable, tenantId: string, c: Counter, at: number): Promise<number> {
    const rows = await q.query<{ used: number }>('SELECT used FROM usage_counters WHERE tenant_id = $1 AND name = $2 AND window_start = $3', [
      tenantId,
      c.name,
      windowOf(c, at).start,
    ]);
    return rows[0]?.used ?? 0;
  }

  private limit(c: Counter, plan: Plan, used: number, at: number): LimitInit {
    const quota = plan[c.quota];
    return {
      name: c.name,
      quota: BigInt(quota),
      windowSeconds: BigInt(c.windowMs / 1000),
      used: BigInt(used),
      remaining: BigInt(Math.max(0, quota - used)),
      resetSeconds: BigInt(windowOf(c, at).resetSeconds),
    };
  }

  /** The request's key, read on every request (not cached): a revoked or expired key is refused at once. */
  private async key(tenantId: string, prefix: string): Promise<{ scopes: string[]; clientIds: string[] }> {
    const k = (
      await this.db.query<{ scopes: string[] | null; client_ids: string[] | null; expires_at: Date | null; revoked_at: Date | null }>(
        'SELECT scopes, client_ids, expires_at, revoked_at FROM api_keys WHERE tenant_id = $1 AND prefix = $2',
        [tenantId, prefix],
      )
    )[0];
    if (!k || k.revoked_at) throw new AppError('unauthenticated', 'invalid_api_key', 'Invalid API key');
    if (k.expires_at && k.expires_at.getTime() <= this.now()) throw new AppError('unauthenticated', 'api_key_expired', 'This API key has expired');
    return { scopes: k.scopes ?? [], clientIds: k.client_ids ?? [] };
  }

  /** One API request (and one send, when `send`): counted, or refused by the first limit it is over. */
  async admit(
    tenantId: string,
    send: boolean,
    apiKeyPrefix: string,
  ): Promise<{ plan: string; limits: LimitInit[]; refusedBy: string; scopes: string[]; clientIds: string[] }> {
    const at = this.now();
    // a deleted tenant's key (still in an edge's cache for a moment) is refused as any unknown key
    const t = await this.tenant(this.db, tenantId).catch((e: AppError) => {
      throw e.kind === 'not_found' ? new AppError('unauthenticated', 'invalid_api_key', 'Invalid API key') : e;
    });
    if (t.suspended_at) throw tenantSuspended();
    const key = apiKeyPrefix ? await this.key(tenantId, apiKeyPrefix) : { scopes: [], clientIds: [] };
    const plan = limitsOf(this.plans, t.plan);
    const counters = send ? [REQUESTS, SENDS, SENDS_PER_DAY] : [REQUESTS];
    const limits: LimitInit[] = [];
    let refusedBy = '';
    const taken: Counter[] = [];
    for (const c of counters) {
      const used = refusedBy ? await this.used(this.db, tenantId, c, at) : await this.take(this.db, tenantId, c, plan[c.quota], at);
      if (used === undefined) {
        refusedBy = c.name;
        limits.push(this.limit(c, plan, plan[c.quota], at));
      } else {
        if (!refusedBy) taken.push(c);
        limits.push(this.limit(c, plan, used, at));
      }
    }
    // a send refused by one of its limits is not counted against the others (the request itself still counts)
    if (refusedBy) {
      for (const c of taken.filter((c) => c !== REQUESTS)) {
        await this.db.query('UPDATE usage_counters SET used = used - 1 WHERE tenant_id = $1 AND name = $2 AND window_start = $3', [
          tenantId,
          c.name,
          windowOf(c, at).start,
        ]);
        const l = limits.find((x) => x.name === c.name)!;
        l.used = BigInt(Number(l.used) - 1);
        l.remaining = BigInt(Number(l.remaining) + 1);
      }
    }
    return { plan: t.plan, limits, refusedBy, ...key };
  }

  /** The plan and every quota's use now, the number of clients included; nothing is counted. */
  async usage(tenantId: string): Promise<{ plan: string; limits: LimitInit[] }> {
    const at = this.now();
    const t = await this.tenant(this.db, tenantId);
    const plan = limitsOf(this.plans, t.plan);
    const limits: LimitInit[] = [];
    for (const c of [REQUESTS, SENDS, SENDS_PER_DAY]) limits.push(this.limit(c, plan, await this.used(this.db, tenantId, c, at), at));
    const clients = await this.clientCount(this.db, tenantId);
    limits.push({
      name: 'clients',
      quota: BigInt(plan.max_clients),
      windowSeconds: 0n,
      used: BigInt(clients),
      remaining: BigInt(Math.max(0, plan.max_clients - clients)),
      resetSeconds: 0n,
    });
    return { plan: t.plan, limits };
  }

  private async clientCount(q: Queryable, tenantId: string): Promise<number> {
    return (await q.query<{ n: number }>('SELECT count(*)::int AS n FROM clients WHERE tenant_id = $1', [tenantId]))[0].n;
  }

  /**
   * Inside the transaction that registers a client: the tenant's row is locked (two registrations at once are
   * counted one after the other) and one more client must fit its plan, else `429 quota_exceeded`.
   */
  async admitClient(q: Queryable, tenantId: string): Promise<void> {
    const t = await this.tenant(q, tenantId, true);
    if (t.suspended_at) throw tenantSuspended();
    const plan = limitsOf(this.plans, t.plan);
    const clients = await this.clientCount(q, tenantId);
    if (clients >= plan.max_clients) {
      throw new AppError('rate_limited', 'quota_exceeded', `The ${t.plan} plan allows ${plan.max_clients} client(s): delete one or change the plan`, {
        retryAfterSeconds: CLIENT_LIMIT_RETRY_SECONDS,
        details: { limit: 'clients', quota: plan.max_clients },
      });
    }
  }

  /** Counter rows of windows that ended more than two days ago. */
  async sweep(): Promise<void> {
    await this.db.query('DELETE FROM usage_counters WHERE window_start < $1', [new Date(this.now() - 2 * DAY_MS)]);
  }
}
