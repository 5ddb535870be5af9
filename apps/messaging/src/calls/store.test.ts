import { storageBackends } from '@gateway/store/testing';
import type { Db } from '@gateway/store';
import { migrations } from '../store/migrations';
import { callView, type CallEvent } from './record';
import { MAX_CALL_EVENTS, SqlCallRepository } from './store';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s)).toISOString();
const event = (kind: CallEvent['kind'], s: number, source: CallEvent['source'] = 'webhook'): CallEvent => ({ kind, at: at(s), source });

describe.each(storageBackends('messaging', migrations, { poolSize: 10 }))('call records on %s', (_name, make) => {
  const backend = make();
  let db: Db;
  let repo: SqlCallRepository;
  const append = (callId: string, e: CallEvent, opts: { clientId?: string; tenantId?: string; direction?: string; user?: string } = {}) =>
    repo.append({ tenantId: opts.tenantId ?? 't1', clientId: opts.clientId ?? 'c1', callId, direction: opts.direction ?? '', user: opts.user ?? '', event: e });

  beforeAll(async () => {
    db = await backend.open();
    repo = new SqlCallRepository(db);
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });

  it('creates a record on its first event whichever it is, keeps the first direction and user said, and reads it only for its tenant and client', async () => {
    await append('wacid.1', event('accepted', 2, 'action'));
    await append('wacid.1', event('ringing', 0), { direction: 'user_initiated', user: '16505551234' });
    await append('wacid.1', event('ringing', 0), { direction: 'business_initiated', user: 'other' });
    const row = (await repo.get('t1', 'c1', 'wacid.1'))!;
    expect([row.direction, row.user_id, row.events.map((e) => e.kind)]).toEqual(['user_initiated', '16505551234', ['accepted', 'ringing', 'ringing']]);
    expect(callView(row.events).timeline.map((t) => t.status)).toEqual(['ringing', 'accepted']);
    expect(await repo.get('t2', 'c1', 'wacid.1')).toBeUndefined();
    expect(await repo.get('t1', 'c2', 'wacid.1')).toBeUndefined();
    expect(await repo.holders('wacid.1')).toEqual([{ tenant_id: 't1', client_id: 'c1' }]);
    expect(await repo.holders('wacid.none')).toEqual([]);
  });

  it('loses no event of concurrent appends, and keeps at most its bound', async () => {
    await Promise.all(Array.from({ length: 20 }, (_, i) => append('wacid.2', event('ringing', i))));
    expect((await repo.get('t1', 'c1', 'wacid.2'))!.events).toHaveLength(20);
    for (let i = 0; i < MAX_CALL_EVENTS; i++) await append('wacid.2', event('ringing', i));
    expect((await repo.get('t1', 'c1', 'wacid.2'))!.events).toHaveLength(MAX_CALL_EVENTS);
  });

  it("pages a client's calls newest first", async () => {
    for (let i = 0; i < 5; i++) await append(`wacid.p${i}`, event('ringing', i), { clientId: 'c-page' });
    const first = await repo.list('t1', 'c-page', 3);
    expect(first.map((r) => r.call_id)).toEqual(['wacid.p4', 'wacid.p3', 'wacid.p2']);
    const rest = await repo.list('t1', 'c-page', 3, first[2].position);
    expect(rest.map((r) => r.call_id)).toEqual(['wacid.p1', 'wacid.p0']);
    expect(await repo.list('t2', 'c-page', 3)).toEqual([]);
  });
});
