import { randomUUID } from 'node:crypto';
import { openDb, type Db } from '@gateway/store';
import { dbTarget, type DbTarget } from '@gateway/testing';
import { migrations } from './migrations';
import { SqlSignupRepository } from './repository';

describe('signup sessions in storage', () => {
  let target: DbTarget;
  let db: Db;
  let repo: SqlSignupRepository;

  beforeAll(async () => {
    target = await dbTarget();
    db = await openDb({ databaseUrl: target.databaseUrl, dataDir: target.dataDir, schema: 'signup', migrations });
    repo = new SqlSignupRepository(db);
  });
  afterAll(async () => {
    await db?.close();
    await target?.cleanup();
  });

  const session = (clientId: string, ttlMs = 60_000) => repo.insertSession({ id: randomUUID(), clientId, tenantId: 't1', stateHash: randomUUID(), ttlMs });

  it('lets one session of a client complete at a time, and only an open, unexpired one', async () => {
    const client = randomUUID();
    const a = await session(client);
    const b = await session(client);
    const claimed = await repo.claim(a.id, client, 60_000);
    expect('claimed' in claimed && claimed.claimed.status).toBe('completing');
    expect(await repo.claim(b.id, client, 60_000)).toEqual({ busy: true });
    expect(await repo.claim(a.id, client, 60_000)).toEqual({ notOpen: true });
    expect((await repo.markCompleted(a.id)).status).toBe('completed');
    expect('claimed' in (await repo.claim(b.id, client, 60_000))).toBe(true);

    const expired = await session(randomUUID(), -1000);
    expect(await repo.isExpired(expired.id)).toBe(true);
    expect(await repo.claim(expired.id, expired.client_id, 60_000)).toEqual({ notOpen: true });
  });

  it('fails a completion stuck past the stale limit so the client can complete again', async () => {
    const client = randomUUID();
    const stuck = await session(client);
    await repo.claim(stuck.id, client, 60_000);
    const next = await session(client);
    expect(await repo.claim(next.id, client, 60_000)).toEqual({ busy: true });
    await new Promise((r) => setTimeout(r, 20));
    expect('claimed' in (await repo.claim(next.id, client, 10))).toBe(true);
    expect(await repo.findByStateHash(stuck.state_hash)).toMatchObject({ status: 'failed', failure_reason: 'interrupted' });
  });

  it('closes a session once: a failed one stays failed', async () => {
    const s = await session(randomUUID());
    expect(await repo.markFailed(s.id, { reason: 'provider_error', detail: null })).toMatchObject({ status: 'failed', failure_reason: 'provider_error' });
    expect(await repo.markFailed(s.id, { reason: 'other', detail: null })).toBeUndefined();
    expect(await repo.closeAsCompleted(s.id)).toBeUndefined();
  });

  it('keeps the first PIN of a number and moves it with the number', async () => {
    const phone = randomUUID();
    expect(await repo.savePin(phone, 'c1', 'enc-1')).toEqual({ client_id: 'c1', pin_enc: 'enc-1' });
    expect(await repo.savePin(phone, 'c2', 'enc-2')).toEqual({ client_id: 'c1', pin_enc: 'enc-1' });
    await repo.reassignPin(phone, 'c2');
    expect(await repo.getPin(phone)).toEqual({ client_id: 'c2', pin_enc: 'enc-1' });
  });

  it('purges sessions long expired, never one being completed', async () => {
    const old = await session(randomUUID(), -5000);
    const completing = await session(randomUUID(), 60_000);
    await repo.claim(completing.id, completing.client_id, 60_000);
    const fresh = await session(randomUUID(), 60_000);
    await repo.purgeExpired(1000);
    expect(await repo.findByStateHash(old.state_hash)).toBeUndefined();
    expect(await repo.findByStateHash(completing.state_hash)).toBeDefined();
    expect(await repo.findByStateHash(fresh.state_hash)).toBeDefined();
  });

  it('purges a never-used session as soon as it expires, a used one only after the grace period', async () => {
    const unused = await session(randomUUID(), -10);
    const used = await session(randomUUID(), 60_000);
    await repo.markFailed(used.id, { reason: 'cancelled', detail: 'x' });
    await repo.purgeExpired(30 * 24 * 3600_000);
    expect(await repo.findByStateHash(unused.state_hash)).toBeUndefined();
    expect(await repo.findByStateHash(used.state_hash)).toBeDefined();
  });
});
