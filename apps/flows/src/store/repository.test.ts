import { storageBackends } from '@gateway/store/testing';
import type { Db } from '@gateway/store';
import { migrations } from './migrations';
import { SqlFlowRepository, type FlowPosition, type ProviderState } from './repository';

describe.each(storageBackends('flows', migrations, { poolSize: 4 }))('flow store on %s', (_name, make) => {
  const backend = make();
  let db: Db;
  let repo: SqlFlowRepository;
  let n = 0;
  const state = (over: Partial<ProviderState> = {}): ProviderState => ({
    flowId: String(1000 + ++n),
    clientId: 'c1',
    tenantId: 't1',
    businessAccountId: 'w1',
    name: `flow ${n}`,
    status: 'draft',
    categories: ['OTHER'],
    validationErrors: [],
    ...over,
  });
  const key = (s: ProviderState) => ({ tenantId: s.tenantId, clientId: s.clientId, flowId: s.flowId });

  beforeAll(async () => {
    db = await backend.open();
    repo = new SqlFlowRepository(db);
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });

  it('stores a flow with its JSON and reads it back only for its tenant and client', async () => {
    const s = state();
    const rec = await repo.upsert(s, { value: { version: '7.0', screens: [] } });
    expect(rec).toMatchObject({
      flow_id: s.flowId,
      client_id: 'c1',
      tenant_id: 't1',
      business_account_id: 'w1',
      status: 'draft',
      categories: ['OTHER'],
      flow_json: { version: '7.0', screens: [] },
      validation_errors: [],
    });
    expect(rec.created_at).toBeInstanceOf(Date);
    expect(await repo.get(key(s))).toEqual(rec);
    expect(await repo.get({ ...key(s), tenantId: 't2' })).toBeUndefined();
    expect(await repo.get({ ...key(s), clientId: 'c2' })).toBeUndefined();
  });

  it('stores what the provider holds even when PostgreSQL could not (NUL, lone surrogates), so the record stays readable', async () => {
    const s = state({ name: 'bad\u0000name\ud800', validationErrors: [{ error: 'X', error_type: 'Y', message: 'at "\u0000"' }] as never });
    const rec = await repo.upsert(s, { value: { version: '7.0', screens: [{ id: 'A', x: 'a\u0000', ['k\u0000']: '\udfff', path: 'C:\\u0000' }] } });
    expect(rec.name).toBe('bad\ufffdname\ufffd');
    expect(rec.flow_json).toEqual({ version: '7.0', screens: [{ id: 'A', x: 'a\ufffd', ['k\ufffd']: '\ufffd', path: 'C:\\u0000' }] });
    expect(await repo.get(key(s))).toEqual(rec);
    const updated = await repo.setJson(key(s), { x: '\u0000' }, []);
    expect(updated?.flow_json).toEqual({ x: '\ufffd' });
    expect((await repo.list('t1', 'c1', 100)).some((f) => f.record.flow_id === s.flowId)).toBe(true);
  });

  it('keeps the JSON on a refresh that does not know it, and moves updated_at only when something changed', async () => {
    const s = state();
    const first = await repo.upsert(s, { value: { version: '7.0' } });
    await new Promise((r) => setTimeout(r, 5));
    const same = await repo.upsert(s);
    expect(same.flow_json).toEqual({ version: '7.0' });
    expect(same.updated_at).toEqual(first.updated_at);
    const published = await repo.upsert({ ...s, status: 'published', validationErrors: [{ error: 'X', pointers: [] }] });
    expect(published).toMatchObject({ status: 'published', flow_json: { version: '7.0' }, validation_errors: [{ error: 'X', pointers: [] }] });
    expect(published.updated_at.getTime()).toBeGreaterThan(first.updated_at.getTime());
  });

  it('stores a flow without JSON as null, and sets JSON, errors and status of an existing record only', async () => {
    const s = state();
    expect((await repo.upsert(s)).flow_json).toBeNull();
    expect(await repo.setJson(key(s), { version: '7.1' }, [{ error: 'MISSING_REQUIRED_PROPERTY' }])).toMatchObject({
      flow_json: { version: '7.1' },
      validation_errors: [{ error: 'MISSING_REQUIRED_PROPERTY' }],
    });
    expect((await repo.setStatus(key(s), 'deprecated'))?.status).toBe('deprecated');
    expect(await repo.setStatus({ ...key(s), tenantId: 't2' }, 'published')).toBeUndefined();
    expect(await repo.setJson({ ...key(s), flowId: '1' }, {}, [])).toBeUndefined();
  });

  it('keeps one record per client of a shared business account, and deletes by key', async () => {
    const s = state();
    await repo.upsert(s);
    await repo.upsert({ ...s, clientId: 'c9' });
    expect(await repo.delete(key(s))).toBe(true);
    expect(await repo.delete(key(s))).toBe(false);
    expect(await repo.get({ ...key(s), clientId: 'c9' })).toBeDefined();
  });

  it("lists a client's flows newest first and drops those the provider no longer lists", async () => {
    const mine = [state({ clientId: 'c5' }), state({ clientId: 'c5' }), state({ clientId: 'c5' })];
    for (const s of mine) {
      await repo.upsert(s);
      await new Promise((r) => setTimeout(r, 5));
    }
    await repo.upsert(state({ clientId: 'c6' }));
    expect((await repo.list('t1', 'c5', 100)).map((r) => r.record.flow_id)).toEqual(mine.map((s) => s.flowId).reverse());
    expect(await repo.deleteAllExcept('t1', 'c5', [mine[1].flowId])).toBe(2);
    expect((await repo.list('t1', 'c5', 100)).map((r) => r.record.flow_id)).toEqual([mine[1].flowId]);
    expect(await repo.list('t1', 'c6', 100)).toHaveLength(1);
    expect(await repo.deleteAllExcept('t1', 'c5', [])).toBe(1);
  });

  it("pages a client's flows by position: newest first to the microsecond, equal times by id, never another tenant's or client's", async () => {
    const mine = Array.from({ length: 7 }, () => state({ clientId: 'c7' }));
    for (const s of mine) await repo.upsert(s);
    // the same client id under another tenant, and another client of the tenant
    await repo.upsert(state({ clientId: 'c7', tenantId: 't2' }));
    await repo.upsert(state({ clientId: 'c8' }));
    // one millisecond holds five of them, microseconds apart (two exactly tied), which a Date cannot tell apart
    const at = [
      '2026-01-01T00:00:00.123001Z',
      '2026-01-01T00:00:00.123002Z',
      '2026-01-01T00:00:00.123900Z',
      '2026-01-01T00:00:00.123900Z',
      '2026-01-01T00:00:00.123999Z',
      '2025-12-31T23:59:59.999999Z',
      '2026-01-01T00:00:00.124000Z',
    ];
    for (const [i, s] of mine.entries())
      await db.query('UPDATE flows SET created_at = $1 WHERE tenant_id = $2 AND client_id = $3 AND flow_id = $4', [at[i], 't1', 'c7', s.flowId]);
    const expected = mine
      .map((s, i) => ({ id: s.flowId, at: at[i] }))
      .sort((x, y) => (x.at === y.at ? (x.id < y.id ? 1 : -1) : x.at < y.at ? 1 : -1))
      .map((x) => x.id);

    const walked: string[] = [];
    let after: FlowPosition | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await repo.list('t1', 'c7', 2, after);
      walked.push(...page.map((p) => p.record.flow_id));
      if (page.length < 2) break;
      after = page[page.length - 1].position;
    }
    expect(walked).toEqual(expected);
    const first = (await repo.list('t1', 'c7', 1))[0];
    expect(first.position).toEqual({ at: '2026-01-01T00:00:00.124000Z', id: mine[6].flowId });
    expect(first.record).toEqual(await repo.get(key(mine[6])));
    expect((await repo.list('t2', 'c7', 100)).map((p) => p.record.tenant_id)).toEqual(['t2']);
  });
});
