import { connectBus, runConsumer, ACK, STREAMS, type Bus } from '@gateway/bus';
import { buildEvent } from '@gateway/events';
import { createLogger } from '@gateway/logger';
import { openDb, type Db } from '@gateway/store';
import { dbTarget, startNatsServer, waitFor, type DbTarget, type TestNatsServer } from '@gateway/testing';
import { enqueueEvent, outboxMigration, startOutboxRelay } from './index';

const logger = createLogger({ name: 'outbox-test', level: 'silent' });

describe('outbox relay', () => {
  let nats: TestNatsServer;
  let target: DbTarget;
  let db: Db;
  let bus: Bus;

  beforeAll(async () => {
    nats = await startNatsServer();
    target = await dbTarget();
    db = await openDb({ ...target, schema: 'outbox_test', migrations: [outboxMigration(1)] });
    bus = await connectBus({ url: nats.url, name: 'outbox-test', logger, streams: [STREAMS.events] });
  });
  afterAll(async () => {
    await bus.close();
    await db.close();
    await target.cleanup();
    await nats.dispose();
  });

  it('publishes what a committed transaction enqueued, and nothing of a rolled back one', async () => {
    const relay = startOutboxRelay({ db, bus, logger, intervalMs: 100 });
    const kept = buildEvent({ type: 'test', tenantId: 't', clientId: 'c', externalId: null, payload: { n: 1 } });
    const lost = buildEvent({ type: 'test', tenantId: 't', clientId: 'c', externalId: null, payload: { n: 2 } });
    await db.tx((q) => enqueueEvent(q, kept));
    await db
      .tx(async (q) => {
        await enqueueEvent(q, lost);
        throw new Error('rollback');
      })
      .catch(() => undefined);
    relay.kick();
    await waitFor(async () => (await relay.pending()) === 0, { timeoutMs: 30_000, what: 'the outbox drained' });
    // everything pending is on the stream now: the committed event, and nothing of the rolled back one
    expect((await bus.jsm.streams.info(STREAMS.events.name)).state.messages).toBe(1);
    const ids: string[] = [];
    const c = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: 'outbox-1',
      logger,
      handle: async (m) => {
        ids.push(m.headers!.get('X-Event-Id'));
        return ACK;
      },
    });
    await waitFor(() => ids.length >= 1, { timeoutMs: 30_000, what: 'the event consumed' });
    await c.stop();
    await relay.stop();
    expect(ids).toEqual([kept.id]);
  });

  it('holds events while the bus is down and publishes them when it returns', async () => {
    // the relay's warnings, to see it try while the bus is down (a logger whose `warn` is counted)
    const failures: unknown[] = [];
    const watched = Object.assign(Object.create(logger) as typeof logger, { warn: (...args: unknown[]) => void failures.push(args) });
    const relay = startOutboxRelay({ db, bus, logger: watched, intervalMs: 100 });
    await nats.stop();
    const e = buildEvent({ type: 'test', tenantId: 't', clientId: 'c2', externalId: null, payload: { during: 'outage' } });
    await db.tx((q) => enqueueEvent(q, e));
    relay.kick();
    await waitFor(() => failures.length >= 1, { timeoutMs: 30_000, what: 'the relay failing to publish while the bus is down' });
    expect(await relay.pending()).toBe(1);
    await nats.start();
    await waitFor(async () => (await relay.pending()) === 0, { timeoutMs: 15_000, what: 'outbox drained after the outage' });
    await relay.stop();
    const msg = await bus.jsm.streams.getMessage(STREAMS.events.name, { last_by_subj: 'events.test.t.c2' });
    expect(JSON.parse(msg.string()).payload).toEqual({ during: 'outage' });
  });
});
