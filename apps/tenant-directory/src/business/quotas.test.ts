import type { Db } from '@gateway/store';
import { storageBackends } from '@gateway/store/testing';
import { migrations } from '../store/migrations';
import type { PlanCatalogue } from './plans';
import { Quotas, type Admission } from './quotas';

const PLANS: PlanCatalogue = {
  standard: { max_clients: 10, sends_per_day: 1000, sends_per_second: 1000, campaigns_per_day: 10, requests_per_second: 1000 },
  tight: { max_clients: 1, sends_per_day: 7, sends_per_second: 1000, campaigns_per_day: 1, requests_per_second: 1000 },
};

/** One fixed second of one day: every window of the test is the same one. */
const NOW = Date.UTC(2026, 10, 30, 12, 0, 0, 500);

describe.each(storageBackends('tenant_directory', migrations))('admission of requests against the quotas on %s', (name, make) => {
  const backend = make();
  let db: Db;
  let n = 0;

  const tenant = async (plan: string, opts: { suspended?: boolean } = {}) => {
    const id = `t${++n}`;
    await db.query(`INSERT INTO tenants (id, name, email, plan, webhook_secret_enc, suspended_at) VALUES ($1, $1, 'a@example.com', $2, 'x', $3)`, [
      id,
      plan,
      opts.suspended ? new Date(NOW) : null,
    ]);
    await db.query(`INSERT INTO api_keys (prefix, tenant_id, key_hash) VALUES ($1, $2, $3)`, [`k-${id}`, id, `h-${id}`]);
    return { id, key: `k-${id}` };
  };
  const counters = async (tenantId: string) =>
    Object.fromEntries(
      (await db.query<{ name: string; used: number }>('SELECT name, used FROM usage_counters WHERE tenant_id = $1 ORDER BY name', [tenantId])).map((r) => [
        r.name,
        r.used,
      ]),
    );
  const settle = (all: Array<Promise<Admission>>) => Promise.allSettled(all);
  const admitted = (outcomes: Array<PromiseSettledResult<Admission>>) =>
    outcomes.filter((o): o is PromiseFulfilledResult<Admission> => o.status === 'fulfilled' && !o.value.refusedBy).length;

  beforeAll(async () => {
    db = await backend.open();
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });

  it('counts a batch of requests in arrival order and refuses the sends over the daily quota without counting them', async () => {
    const { id, key } = await tenant('tight');
    const quotas = new Quotas(db, PLANS, () => NOW);
    // one turn: ten sends and two other requests, all in one batch
    const outcomes = await settle([
      ...Array.from({ length: 10 }, () => quotas.admit(id, true, key)),
      quotas.admit(id, false, key),
      quotas.admit(id, false, key),
    ]);
    const sends = outcomes.slice(0, 10).map((o) => (o.status === 'fulfilled' ? o.value.refusedBy : 'rejected'));
    expect(sends).toEqual(['', '', '', '', '', '', '', 'sends_per_day', 'sends_per_day', 'sends_per_day']);
    expect(outcomes.slice(10).map((o) => o.status === 'fulfilled' && o.value.refusedBy)).toEqual(['', '']);
    expect(await counters(id)).toEqual({ requests: 12, sends: 7, sends_per_day: 7 });
    const first = (outcomes[0] as PromiseFulfilledResult<Admission>).value;
    expect(first.plan).toBe('tight');
    expect(first.limits.map((l) => [l.name, Number(l.used), Number(l.remaining)])).toEqual([
      ['requests', 1, 999],
      ['sends', 1, 999],
      ['sends_per_day', 1, 6],
    ]);
  });

  it('a request with an unknown, revoked or expired key is refused in its place and counts nothing', async () => {
    const { id, key } = await tenant('standard');
    await db.query(`INSERT INTO api_keys (prefix, tenant_id, key_hash, revoked_at) VALUES ($1, $2, $3, now())`, [`r-${id}`, id, `hr-${id}`]);
    await db.query(`INSERT INTO api_keys (prefix, tenant_id, key_hash, expires_at) VALUES ($1, $2, $3, $4)`, [`e-${id}`, id, `he-${id}`, new Date(NOW - 1)]);
    const quotas = new Quotas(db, PLANS, () => NOW);
    const outcomes = await settle([
      quotas.admit(id, true, 'nope'),
      quotas.admit(id, true, `r-${id}`),
      quotas.admit(id, true, `e-${id}`),
      quotas.admit(id, false, key),
    ]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as { code: string }).code : 'admitted'))).toEqual([
      'invalid_api_key',
      'invalid_api_key',
      'api_key_expired',
      'admitted',
    ]);
    // the batch's sends all had bad keys: their counters are there (locked with the batch's) but count nothing
    expect(await counters(id)).toEqual({ requests: 1, sends: 0, sends_per_day: 0 });
  });

  it('a tenant that is not there gets invalid_api_key and no counter rows; a suspended one tenant_suspended', async () => {
    const quotas = new Quotas(db, PLANS, () => NOW);
    await expect(quotas.admit('t-gone', true, 'k-gone')).rejects.toMatchObject({ code: 'invalid_api_key' });
    expect(await counters('t-gone')).toEqual({});
    const { id, key } = await tenant('standard', { suspended: true });
    await expect(quotas.admit(id, true, key)).rejects.toMatchObject({ code: 'tenant_suspended' });
    expect(Object.values(await counters(id)).every((used) => used === 0)).toBe(true);
  });

  it('a campaign counts against campaigns per day, a second one the same day is refused', async () => {
    const { id, key } = await tenant('tight');
    const quotas = new Quotas(db, PLANS, () => NOW);
    expect((await quotas.admit(id, false, key, true)).refusedBy).toBe('');
    expect((await quotas.admit(id, false, key, true)).refusedBy).toBe('campaigns_per_day');
    expect(await counters(id)).toEqual({ campaigns_per_day: 1, requests: 2 });
  });

  it('directory replicas on one database admit exactly the quota between them, however their batches interleave', async () => {
    const { id, key } = await tenant('tight');
    // a second replica: on PostgreSQL its own connection pool; PGlite has one process, so the same database
    const other = name === 'postgres' ? await backend.open() : db;
    try {
      const replicas = [new Quotas(db, PLANS, () => NOW), new Quotas(other, PLANS, () => NOW)];
      const all: Array<Promise<Admission>> = [];
      // 40 sends over 8 turns, alternating replicas: batches of both replicas wait on each other's counter rows
      for (let turn = 0; turn < 8; turn++) {
        for (let i = 0; i < 5; i++) all.push(replicas[(turn + i) % 2].admit(id, true, key));
        await new Promise((r) => setImmediate(r));
      }
      const outcomes = await settle(all);
      expect(outcomes.filter((o) => o.status === 'rejected')).toEqual([]);
      expect(admitted(outcomes)).toBe(7);
      expect(await counters(id)).toEqual({ requests: 40, sends: 7, sends_per_day: 7 });
    } finally {
      if (other !== db) await other.close();
    }
  });
});
