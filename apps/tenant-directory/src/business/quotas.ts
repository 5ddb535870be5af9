import type { MessageInitShape } from '@bufbuild/protobuf';
import type { business } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import type { Db, Queryable } from '@gateway/store';
import { limitsOf, type Plan, type PlanCatalogue } from './plans';

type LimitInit = MessageInitShape<typeof business.LimitSchema>;

const DAY_MS = 86_400_000;

/** One counted limit: its name (the RateLimit policy's), its window and the plan field giving its quota. */
interface Counter {
  name: 'requests' | 'sends' | 'sends_per_day' | 'campaigns_per_day';
  windowMs: number;
  quota: keyof Plan;
}

const REQUESTS: Counter = { name: 'requests', windowMs: 1000, quota: 'requests_per_second' };
const SENDS: Counter = { name: 'sends', windowMs: 1000, quota: 'sends_per_second' };
const SENDS_PER_DAY: Counter = { name: 'sends_per_day', windowMs: DAY_MS, quota: 'sends_per_day' };
/** Campaigns created per UTC day (`POST /api/campaigns`, a scheduled one included). */
const CAMPAIGNS_PER_DAY: Counter = { name: 'campaigns_per_day', windowMs: DAY_MS, quota: 'campaigns_per_day' };

/** While a client limit refuses, how long a tenant is asked to wait (a client must be deleted or the plan changed first). */
export const CLIENT_LIMIT_RETRY_SECONDS = 3600;

function windowOf(c: Counter, now: number) {
  const start = Math.floor(now / c.windowMs) * c.windowMs;
  return { start: new Date(start), resetSeconds: Math.max(1, Math.ceil((start + c.windowMs - now) / 1000)) };
}

/** What `admit` answers: the plan, every limit the request was counted against, and what the key may do and reach. */
export interface Admission {
  plan: string;
  limits: LimitInit[];
  refusedBy: string;
  scopes: string[];
  clientIds: string[];
}

interface AdmitRequest {
  send: boolean;
  campaign: boolean;
  apiKeyPrefix: string;
  resolve(a: Admission): void;
  reject(e: unknown): void;
}

interface KeyRow {
  prefix: string;
  scopes: string[] | null;
  client_ids: string[] | null;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export const tenantSuspended = () => new AppError('forbidden', 'tenant_suspended', 'This tenant is suspended: ask the operator');

/**
 * Quotas and rate limits, counted in the tenant directory's database (`usage_counters`: one row per tenant, limit
 * and fixed window), so every edge replica counts against the same numbers. A request over its limit is refused
 * without being counted.
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

  /**
   * One API request (and one send, when `send`; one campaign, when `campaign`): counted, or refused by the first limit it is over. The tenant,
   * its key and its counters are read on every request (never cached: a revoked or expired key, a suspension, a
   * plan change count at once); requests of one tenant that arrive together are admitted in one transaction
   * (`admitBatch`), in arrival order, exactly as if they had come one by one.
   */
  admit(tenantId: string, send: boolean, apiKeyPrefix: string, campaign = false): Promise<Admission> {
    return new Promise<Admission>((resolve, reject) => {
      const request = { send, campaign, apiKeyPrefix, resolve, reject };
      const waiting = this.waiting.get(tenantId);
      if (waiting) return void waiting.push(request);
      this.waiting.set(tenantId, [request]);
      if (this.draining.has(tenantId)) return;
      this.draining.add(tenantId);
      // one turn of the event loop: the requests that arrived together join the batch
      setImmediate(() => void this.drain(tenantId));
    });
  }

  /** Requests waiting per tenant, and the tenants whose batch is being written (the next waits for it). */
  private readonly waiting = new Map<string, AdmitRequest[]>();
  private readonly draining = new Set<string>();

  private async drain(tenantId: string): Promise<void> {
    try {
      for (let batch = this.waiting.get(tenantId); batch; batch = this.waiting.get(tenantId)) {
        this.waiting.delete(tenantId);
        try {
          const outcomes = await this.db.tx((q) => this.admitBatch(q, tenantId, batch!));
          // answered once committed: an admitted request is a counted one
          outcomes.forEach((o, i) => ('error' in o ? batch![i].reject(o.error) : batch![i].resolve(o)));
        } catch (e) {
          for (const r of batch) r.reject(e);
        }
      }
    } finally {
      this.draining.delete(tenantId);
    }
  }

  /**
   * A batch of one tenant's requests in one transaction: the tenant and the keys the batch names read once, each
   * counter row locked and read once (`ON CONFLICT DO UPDATE` locks the latest version, so replicas of the
   * directory count one after the other), every request decided in arrival order, the counters written once.
   */
  private async admitBatch(q: Queryable, tenantId: string, batch: AdmitRequest[]): Promise<Array<Admission | { error: AppError }>> {
    const at = this.now();
    // Every counter the batch may touch (its sends' and campaigns' whatever their keys turn out to be: a counter
    // row of 0 changes nothing), created or locked (`ON CONFLICT DO UPDATE` locks the latest version, so replicas
    // of the directory count one after the other) and read in the statement that reads the tenant and the keys
    // the batch names (a row per key found, one with no key when none is); nothing is created for a tenant that
    // is not there. The statement also turns off the wait for the WAL flush for this transaction: counters only,
    // so a crash of the database server may forget the last few milliseconds of counts (never corrupt them), and
    // on a busy server that wait was most of a request's time. One round trip where there were two (issue 29: the
    // tenant's and keys' read was one, the counters' another)
    const counters = [REQUESTS, ...(batch.some((r) => r.send) ? [SENDS, SENDS_PER_DAY] : []), ...(batch.some((r) => r.campaign) ? [CAMPAIGNS_PER_DAY] : [])];
    const prefixes = [...new Set(batch.map((r) => r.apiKeyPrefix).filter(Boolean))];
    const params: unknown[] = [tenantId, prefixes];
    const windows = counters.map((c) => {
      params.push(c.name, windowOf(c, at).start);
      return `($${params.length - 1}::text, $${params.length}::timestamptz)`;
    });
    const found = await q.query<{ plan: string; suspended_at: Date | null; counters: Array<[string, number]> } & { [K in keyof KeyRow]: KeyRow[K] | null }>(
      `WITH c AS (
         INSERT INTO usage_counters AS u (tenant_id, name, window_start, used)
         SELECT $1, v.name, v.window_start, 0 FROM (VALUES ${windows.join(', ')}) AS v(name, window_start)
         WHERE EXISTS (SELECT 1 FROM tenants WHERE id = $1)
         ON CONFLICT (tenant_id, name, window_start) DO UPDATE SET used = u.used RETURNING name, used)
       SELECT t.plan, t.suspended_at, k.prefix, k.scopes, k.client_ids, k.expires_at, k.revoked_at, set_config('synchronous_commit', 'off', true),
         (SELECT json_agg(json_build_array(c.name, c.used)) FROM c) AS counters
       FROM tenants t LEFT JOIN api_keys k ON k.tenant_id = t.id AND k.prefix = ANY($2::text[]) WHERE t.id = $1`,
      params,
    );
    const t = found[0];
    // a deleted tenant's key (still in an edge's cache for a moment) is refused as any unknown key
    if (!t) return batch.map(() => ({ error: new AppError('unauthenticated', 'invalid_api_key', 'Invalid API key') }));
    if (t.suspended_at) return batch.map(() => ({ error: tenantSuspended() }));
    const keys = new Map(found.filter((k): k is typeof k & KeyRow => k.prefix !== null).map((k) => [k.prefix, k]));
    const keyOf = (prefix: string): { scopes: string[]; clientIds: string[] } | { error: AppError } => {
      if (!prefix) return { scopes: [], clientIds: [] };
      const k = keys.get(prefix);
      if (!k || k.revoked_at) return { error: new AppError('unauthenticated', 'invalid_api_key', 'Invalid API key') };
      if (k.expires_at && k.expires_at.getTime() <= at) return { error: new AppError('unauthenticated', 'api_key_expired', 'This API key has expired') };
      return { scopes: k.scopes ?? [], clientIds: k.client_ids ?? [] };
    };
    const checked = batch.map((r) => ({ r, key: keyOf(r.apiKeyPrefix) }));
    if (!checked.some((c) => !('error' in c.key))) return checked.map((c) => c.key as { error: AppError });

    const plan = limitsOf(this.plans, t.plan);
    const read = new Map(t.counters ?? []);
    const used = new Map(counters.map((c) => [c.name, read.get(c.name) ?? 0]));
    const before = new Map(used);
    const quota = (c: Counter) => plan[c.quota];
    const outcomes = checked.map(({ r, key }): Admission | { error: AppError } => {
      if ('error' in key) return key;
      const limits: LimitInit[] = [];
      let refusedBy = '';
      const u = (c: Counter) => used.get(c.name)!;
      if (u(REQUESTS) < quota(REQUESTS)) used.set(REQUESTS.name, u(REQUESTS) + 1);
      else refusedBy = REQUESTS.name;
      limits.push(this.limit(REQUESTS, plan, refusedBy ? quota(REQUESTS) : u(REQUESTS), at));
      const more = [...(r.send ? [SENDS, SENDS_PER_DAY] : []), ...(r.campaign ? [CAMPAIGNS_PER_DAY] : [])];
      // a send (or campaign) refused by one of its limits is not counted against the others (the request itself still counts)
      if (!refusedBy) refusedBy = more.find((c) => u(c) >= quota(c))?.name ?? '';
      if (!refusedBy) for (const c of more) used.set(c.name, u(c) + 1);
      for (const c of more) limits.push(this.limit(c, plan, refusedBy === c.name ? quota(c) : u(c), at));
      return { plan: t.plan, limits, refusedBy, ...key };
    });
    const changed = counters.filter((c) => used.get(c.name) !== before.get(c.name));
    if (changed.length) {
      const set: unknown[] = [tenantId];
      const rowsSql = changed.map((c) => {
        set.push(c.name, windowOf(c, at).start, used.get(c.name));
        return `($1, $${set.length - 2}::text, $${set.length - 1}::timestamptz, $${set.length}::integer)`;
      });
      // the rows are there and locked by this transaction: written as an upsert, which PostgreSQL plans in a sixth
      // of the time of the UPDATE … FROM (VALUES …) join it replaces (issue 29)
      await q.query(
        `INSERT INTO usage_counters AS u (tenant_id, name, window_start, used) VALUES ${rowsSql.join(', ')}
         ON CONFLICT (tenant_id, name, window_start) DO UPDATE SET used = EXCLUDED.used`,
        set,
      );
    }
    return outcomes;
  }

  /** The plan and every quota's use now, the number of clients included; nothing is counted. */
  async usage(tenantId: string): Promise<{ plan: string; limits: LimitInit[] }> {
    const at = this.now();
    const t = await this.tenant(this.db, tenantId);
    const plan = limitsOf(this.plans, t.plan);
    const limits: LimitInit[] = [];
    for (const c of [REQUESTS, SENDS, SENDS_PER_DAY, CAMPAIGNS_PER_DAY]) limits.push(this.limit(c, plan, await this.used(this.db, tenantId, c, at), at));
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
