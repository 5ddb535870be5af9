import { createHash } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { messaging } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import { createLogger } from '@gateway/logger';
import { openDb, type Db } from '@gateway/store';
import { createTestDatabase, postgresServerUrl, tempDir, type TestDatabase } from '@gateway/testing';
import { IdempotentRunner, type Executed } from './idempotency';
import { Messaging } from './messaging';
import { migrations } from './store/migrations';
import { MessageStore } from './store/message-store';
import { SqlMessageRepository } from './store/messages';

const hash = (s: string) => createHash('sha256').update(s).digest('hex');
const caller = (key: string, body = 'body', tenantId = 't1') =>
  create(messaging.CallerContextSchema, { tenantId, clientId: 'c1', idempotencyKey: key, requestHash: key ? hash(body) : '' });

describe('idempotent runner', () => {
  let db: Db;
  let tdb: TestDatabase | undefined;
  const dir = tempDir('gw-idem-');
  let runner: IdempotentRunner;
  let calls = 0;

  beforeAll(async () => {
    const server = postgresServerUrl();
    if (server) tdb = await createTestDatabase(server);
    db = await openDb({ databaseUrl: tdb?.databaseUrl, dataDir: dir.path, schema: 'messaging', migrations });
    const logger = createLogger({ name: 'test', level: 'silent' });
    runner = new IdempotentRunner(db, { ttlMs: 60_000, leaseMs: 60_000 }, new MessageStore(db, logger), logger);
  });
  afterAll(async () => {
    await db.close();
    await tdb?.drop();
    dir.remove();
  });
  beforeEach(() => {
    calls = 0;
  });

  /** An operation whose execution step counts its calls and answers (or fails) after `ms`. */
  const op =
    (outcome: () => Executed<{ result: { messageId: string } }> | Promise<never>, ms = 0) =>
    async () =>
    async () => {
      calls++;
      await new Promise((r) => setTimeout(r, ms));
      return outcome();
    };
  const ok = (id: string) => () => ({ response: { result: { messageId: id } }, message: { id, tenantId: 't1', clientId: 'c1', to: '1', kind: 'buttons' } });
  const fail = (e: AppError) => () => Promise.reject(e);

  it('runs once and replays the stored outcome; the message record is stored with it', async () => {
    const first = await runner.run(caller('a'), 'op', op(ok('wamid.a')));
    const again = await runner.run(caller('a'), 'op', op(ok('wamid.other')));
    expect(first).toEqual({ response: { result: { messageId: 'wamid.a' } }, replayed: false });
    expect(again).toEqual({ response: { result: { messageId: 'wamid.a' } }, replayed: true });
    expect(calls).toBe(1);
    expect(await new SqlMessageRepository(db).get('t1', 'c1', 'wamid.a')).toMatchObject({ status: 'accepted' });
  });

  it('refuses the key with another request, and keeps keys apart per tenant', async () => {
    await runner.run(caller('b', 'one'), 'op', op(ok('wamid.b1')));
    await expect(runner.run(caller('b', 'two'), 'op', op(ok('wamid.b2')))).rejects.toMatchObject({ kind: 'conflict', code: 'idempotency_key_reused' });
    const other = await runner.run(caller('b', 'two', 't2'), 'op', op(ok('wamid.b3')));
    expect(other.replayed).toBe(false);
    expect(calls).toBe(2);
  });

  it('executes once for 20 simultaneous duplicates; the others replay or are told it is in progress', async () => {
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => runner.run(caller('c'), 'op', op(ok('wamid.c'), 50))));
    expect(calls).toBe(1);
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(fulfilled.length).toBeGreaterThanOrEqual(1);
    for (const r of rejected) expect(r.reason).toMatchObject({ kind: 'conflict', code: 'idempotency_in_progress' });
    for (const r of fulfilled) expect((r as PromiseFulfilledResult<{ response: unknown }>).value.response).toEqual({ result: { messageId: 'wamid.c' } });
  });

  it('replays a deterministic rejection with its details', async () => {
    const rejection = new AppError('provider_rejected', 'provider_error', 'Invalid parameter', { details: { provider_error: { code: 100 } } });
    await expect(runner.run(caller('d'), 'op', op(fail(rejection)))).rejects.toMatchObject({ kind: 'provider_rejected' });
    const replayed = await runner.run(caller('d'), 'op', op(ok('wamid.d'))).catch((e: AppError) => e);
    expect(replayed).toMatchObject({
      kind: 'provider_rejected',
      code: 'provider_error',
      message: 'Invalid parameter',
      details: { provider_error: { code: 100 } },
    });
    expect(calls).toBe(1);
  });

  it.each([
    ['a timeout', new AppError('timeout', 'provider_timeout', 'timed out')],
    ['an unavailable provider', new AppError('unavailable', 'provider_unavailable', 'down')],
    ['throttling', new AppError('rate_limited', 'provider_rate_limited', 'slow down', { retryAfterSeconds: 5 })],
  ])('releases the key after %s so a retry goes through', async (_name, err) => {
    const key = `e-${err.kind}`;
    await expect(runner.run(caller(key), 'op', op(fail(err)))).rejects.toMatchObject({ kind: err.kind });
    const retry = await runner.run(caller(key), 'op', op(ok(`wamid.${key}`)));
    expect(retry).toEqual({ response: { result: { messageId: `wamid.${key}` } }, replayed: false });
    expect(calls).toBe(2);
  });

  it('keeps an unknown outcome: a repeat replays the same 504 and never runs again', async () => {
    const unknown = new AppError('timeout', 'provider_outcome_unknown', 'may have been sent', { details: { outcome: 'unknown' } });
    await expect(runner.run(caller('u'), 'op', op(fail(unknown)))).rejects.toBe(unknown);
    const replayed = await runner.run(caller('u'), 'op', op(ok('wamid.u'))).catch((e: AppError) => e);
    expect(replayed).toMatchObject({ kind: 'timeout', code: 'provider_outcome_unknown', details: { outcome: 'unknown' } });
    expect(calls).toBe(1);
  });

  it('releases the key after a retryable provider refusal (maintenance), keeps it after a final one', async () => {
    const maintenance = new AppError('unavailable', 'provider_maintenance', 'maintenance', {
      details: { provider_error: { code: 131057 }, retryable: true },
      retryAfterSeconds: 60,
    });
    await expect(runner.run(caller('m'), 'op', op(fail(maintenance)))).rejects.toBe(maintenance);
    expect((await runner.run(caller('m'), 'op', op(ok('wamid.m')))).replayed).toBe(false);
    const window = new AppError('conflict', 'customer_service_window_closed', 'closed', { details: { provider_error: { code: 131047 }, retryable: false } });
    await expect(runner.run(caller('w'), 'op', op(fail(window)))).rejects.toBe(window);
    await expect(runner.run(caller('w'), 'op', op(ok('wamid.w')))).rejects.toMatchObject({ code: 'customer_service_window_closed' });
    expect(calls).toBe(3);
  });

  it('records nothing when the request fails before the provider call', async () => {
    const notActive = AppError.conflict('client_not_active', 'Client is not active');
    await expect(runner.run(caller('f'), 'op', async () => Promise.reject(notActive))).rejects.toBe(notActive);
    expect((await runner.run(caller('f'), 'op', op(ok('wamid.f')))).replayed).toBe(false);
  });

  it('runs without a key every time', async () => {
    await runner.run(caller(''), 'op', op(ok('wamid.g1')));
    await runner.run(caller(''), 'op', op(ok('wamid.g2')));
    expect(calls).toBe(2);
  });

  it('replays a send-flow outcome stored before sends went through one RPC with its token as X-Flow-Token', async () => {
    const stored = { result: { messageId: 'wamid.legacy' }, flowToken: 'ft_legacy' };
    await runner.run(caller('legacy-flow'), 'send:flow', async () => async () => ({ response: stored }));
    // a replay reads nothing else: no directory, provider or template check is reached
    const svc = new Messaging({} as never, {} as never, runner, new SqlMessageRepository(db));
    const body = {
      client_id: '4a1f3c52-8d1e-4f7a-9a53-0c6f1b2d9e10',
      to: '+16505551234',
      body: 'Book',
      button_text: 'Book now',
      flow_id: '1',
      flow_token: 'ft_legacy',
    };
    const replay = await svc.send(create(messaging.SendRequestSchema, { caller: caller('legacy-flow'), kind: 'flow', bodyJson: JSON.stringify(body) }));
    expect(replay).toEqual({ result: { messageId: 'wamid.legacy', replayed: true }, headers: { 'X-Flow-Token': 'ft_legacy' } });
  });
});
