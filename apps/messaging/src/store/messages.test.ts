import { storageBackends } from '@gateway/store/testing';
import type { Db } from '@gateway/store';
import { migrations } from './migrations';
import { SqlMessageRepository, type MessageStatus } from './messages';
import { SqlIdempotencyRepository } from './idempotency';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s));

describe.each(storageBackends('messaging', migrations, { poolSize: 10 }))('message store on %s', (_name, make) => {
  const backend = make();
  let db: Db;
  let repo: SqlMessageRepository;
  let n = 0;
  const newMessage = async () => {
    const id = `wamid.test${++n}`;
    await repo.insertAccepted({ id, tenantId: 't1', clientId: 'c1', to: '+16505551234', kind: 'buttons', at: at(0) });
    return id;
  };

  beforeAll(async () => {
    db = await backend.open();
    repo = new SqlMessageRepository(db);
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });

  it('stores an accepted send and reads it back only for its tenant and client', async () => {
    const id = await newMessage();
    const rec = await repo.get('t1', 'c1', id);
    expect(rec).toMatchObject({
      id,
      tenant_id: 't1',
      client_id: 'c1',
      to: '+16505551234',
      kind: 'buttons',
      status: 'accepted',
      status_history: [{ status: 'accepted', at: at(0).toISOString() }],
    });
    expect(rec?.created_at).toEqual(at(0));
    expect(await repo.get('t2', 'c1', id)).toBeUndefined();
    expect(await repo.get('t1', 'c2', id)).toBeUndefined();
    // a second insert of the same id changes nothing
    await repo.insertAccepted({ id, tenantId: 't9', clientId: 'c9', to: '1', kind: 'list' });
    expect((await repo.get('t1', 'c1', id))?.kind).toBe('buttons');
  });

  it('moves forward in order and records each step', async () => {
    const id = await newMessage();
    expect(await repo.advanceStatus(id, 'sent', at(1))).toBe(true);
    expect(await repo.advanceStatus(id, 'delivered', at(2))).toBe(true);
    expect(await repo.advanceStatus(id, 'read', at(3))).toBe(true);
    const rec = await repo.get('t1', 'c1', id);
    expect(rec?.status).toBe('read');
    expect(rec?.status_history.map((h) => h.status)).toEqual(['accepted', 'sent', 'delivered', 'read']);
    expect(rec!.updated_at.getTime()).toBeGreaterThan(rec!.created_at.getTime());
  });

  it('never moves back when updates arrive out of order, and keeps every update in the history in time order', async () => {
    const id = await newMessage();
    await repo.advanceStatus(id, 'read', at(3));
    await repo.advanceStatus(id, 'sent', at(1));
    await repo.advanceStatus(id, 'delivered', at(2));
    const rec = await repo.get('t1', 'c1', id);
    expect(rec?.status).toBe('read');
    expect(rec?.status_history).toEqual([
      { status: 'accepted', at: at(0).toISOString() },
      { status: 'sent', at: at(1).toISOString() },
      { status: 'delivered', at: at(2).toISOString() },
      { status: 'read', at: at(3).toISOString() },
    ]);
  });

  it('keeps a status update that overtook its send and applies it once the send is stored', async () => {
    const id = `wamid.early-${Math.random()}`;
    expect(await repo.recordStatus(id, 'delivered', at(2))).toBe(false);
    expect(await repo.get('t1', 'c1', id)).toBeUndefined();
    await repo.insertAccepted({ id, tenantId: 't1', clientId: 'c1', to: '+16505551234', kind: 'text', at: at(0) });
    await repo.applyEarlyStatuses(id);
    const rec = await repo.get('t1', 'c1', id);
    expect(rec?.status).toBe('delivered');
    expect(rec?.status_history.map((h) => h.status)).toEqual(['accepted', 'delivered']);
    expect(await repo.recordStatus(id, 'read', at(3))).toBe(true);
    expect((await repo.get('t1', 'c1', id))?.status).toBe('read');
    expect(await repo.purgeEarlyStatuses(0)).toBe(0);
  });

  it('applies a status whose send was stored between its first look and its kept row, and keeps no row for it', async () => {
    const id = `wamid.race-${Math.random()}`;
    const other = `wamid.race-other-${Math.random()}`;
    // the send commits right after the status was kept (its own look at early statuses came before that)
    const racing = new SqlMessageRepository({
      query: async (sql, params) => {
        const rows = await db.query(sql, params);
        if (sql.startsWith('INSERT INTO early_statuses'))
          await repo.insertAccepted({ id, tenantId: 't1', clientId: 'c1', to: '+16505551234', kind: 'text', at: at(0) });
        return rows as never;
      },
      exec: (sql) => db.exec(sql),
    });
    const owners = await racing.recordStatuses([
      { messageId: id, status: 'delivered', at: at(2) },
      { messageId: other, status: 'delivered', at: at(2) },
    ]);
    expect(owners).toEqual([{ tenant_id: 't1', client_id: 'c1', contact_id: null, status: 'delivered' }, undefined]);
    expect((await repo.get('t1', 'c1', id))?.status_history.map((h) => h.status)).toEqual(['accepted', 'delivered']);
    // the applied status's kept row is gone; the other one's stays until its send or the purge
    const kept = await db.query<{ message_id: string }>('SELECT message_id FROM early_statuses WHERE message_id = ANY($1::text[])', [[id, other]]);
    expect(kept.map((r) => r.message_id)).toEqual([other]);
  });

  it('takes failed from any state, keeps its errors, and nothing moves it afterwards', async () => {
    const errors = [{ code: 131026, title: 'Message undeliverable' }];
    const fromDelivered = await newMessage();
    await repo.advanceStatus(fromDelivered, 'delivered', at(2));
    await repo.advanceStatus(fromDelivered, 'failed', at(4), errors);
    await repo.advanceStatus(fromDelivered, 'read', at(5));
    const rec = await repo.get('t1', 'c1', fromDelivered);
    expect(rec?.status).toBe('failed');
    expect(rec?.status_history[2]).toEqual({ status: 'failed', at: at(4).toISOString(), errors });
    expect(rec?.status_history).toHaveLength(4);

    const fromAccepted = await newMessage();
    await repo.advanceStatus(fromAccepted, 'failed', at(1), errors);
    expect((await repo.get('t1', 'c1', fromAccepted))?.status).toBe('failed');
  });

  it('ignores an exact duplicate, and reports unknown messages', async () => {
    const id = await newMessage();
    expect(await repo.advanceStatus(id, 'sent', at(1))).toBe(true);
    const before = await repo.get('t1', 'c1', id);
    expect(await repo.advanceStatus(id, 'sent', at(1))).toBe(true);
    const after = await repo.get('t1', 'c1', id);
    expect(after?.status_history).toHaveLength(2);
    expect(after?.updated_at).toEqual(before?.updated_at);
    // same status at another time is a new entry
    await repo.advanceStatus(id, 'sent', at(2));
    expect((await repo.get('t1', 'c1', id))?.status_history).toHaveLength(3);
    expect(await repo.advanceStatus('wamid.unknown', 'sent', at(1))).toBe(false);
  });

  it('loses no update and ends on the highest status under concurrent updates', async () => {
    const statuses: Array<Exclude<MessageStatus, 'accepted'>> = ['sent', 'delivered', 'read'];
    for (let round = 0; round < 3; round++) {
      const id = await newMessage();
      // 30 updates at once, in shuffled order, each status several times with distinct timestamps, plus duplicates
      const updates = Array.from({ length: 24 }, (_, i) => ({ status: statuses[i % 3], at: at(i + 1) }));
      const withDuplicates = [...updates, ...updates.slice(0, 6)].sort(() => Math.random() - 0.5);
      const results = await Promise.all(withDuplicates.map((u) => repo.advanceStatus(id, u.status, u.at)));
      expect(results.every(Boolean)).toBe(true);
      const rec = await repo.get('t1', 'c1', id);
      expect(rec?.status).toBe('read');
      expect(rec?.status_history).toHaveLength(1 + updates.length);
      const got = rec!.status_history
        .slice(1)
        .map((h) => `${h.status}@${h.at}`)
        .sort();
      expect(got).toEqual(updates.map((u) => `${u.status}@${u.at.toISOString()}`).sort());
    }
  });

  it('ends failed when a failure races with delivery updates', async () => {
    const id = await newMessage();
    await Promise.all([
      repo.advanceStatus(id, 'read', at(3)),
      repo.advanceStatus(id, 'failed', at(2), [{ code: 131000 }]),
      repo.advanceStatus(id, 'delivered', at(2)),
      repo.advanceStatus(id, 'sent', at(1)),
    ]);
    const rec = await repo.get('t1', 'c1', id);
    expect(rec?.status).toBe('failed');
    expect(rec?.status_history).toHaveLength(5);
  });

  describe('idempotency keys', () => {
    let keys: SqlIdempotencyRepository;
    beforeAll(() => {
      keys = new SqlIdempotencyRepository(db, { ttlMs: 60_000, leaseMs: 60_000 });
    });

    it('gives a key to exactly one of many simultaneous claims', async () => {
      const claims = await Promise.all(Array.from({ length: 20 }, () => keys.claim('t1', 'k-concurrent', 'h1', 'send:buttons')));
      expect(claims.filter((c) => c.state === 'claimed')).toHaveLength(1);
      expect(claims.filter((c) => c.state === 'in_progress')).toHaveLength(19);
    });

    it('replays a completed outcome, refuses another hash, and is scoped to the tenant', async () => {
      const claim = await keys.claim('t1', 'k1', 'h1', 'send:buttons');
      expect(claim.state).toBe('claimed');
      if (claim.state !== 'claimed') return;
      await keys.complete('t1', 'k1', claim.token, { ok: { result: { messageId: 'wamid.1' } } });
      expect(await keys.claim('t1', 'k1', 'h1', 'send:buttons')).toEqual({ state: 'completed', outcome: { ok: { result: { messageId: 'wamid.1' } } } });
      expect(await keys.claim('t1', 'k1', 'h2', 'send:buttons')).toEqual({ state: 'mismatch' });
      expect((await keys.claim('t2', 'k1', 'h2', 'send:buttons')).state).toBe('claimed');
    });

    it('lets a released key be claimed again, and only by the owner token', async () => {
      const first = await keys.claim('t1', 'k2', 'h1', 'x');
      if (first.state !== 'claimed') throw new Error('not claimed');
      await keys.release('t1', 'k2', 'someone-else');
      expect((await keys.claim('t1', 'k2', 'h1', 'x')).state).toBe('in_progress');
      await keys.release('t1', 'k2', first.token);
      expect((await keys.claim('t1', 'k2', 'h1', 'x')).state).toBe('claimed');
    });

    it('takes over an expired key and an abandoned claim', async () => {
      const short = new SqlIdempotencyRepository(db, { ttlMs: 1, leaseMs: 1 });
      const first = await short.claim('t1', 'k3', 'h1', 'x');
      if (first.state !== 'claimed') throw new Error('not claimed');
      await new Promise((r) => setTimeout(r, 20));
      // the owner vanished without completing: the lease ran out
      const second = await short.claim('t1', 'k3', 'h2', 'x');
      expect(second.state).toBe('claimed');
      if (second.state !== 'claimed') return;
      await short.complete('t1', 'k3', second.token, { ok: {} });
      await new Promise((r) => setTimeout(r, 20));
      expect(await short.purgeExpired()).toBeGreaterThanOrEqual(1);
      expect((await short.claim('t1', 'k3', 'h3', 'x')).state).toBe('claimed');
    });
  });
});
