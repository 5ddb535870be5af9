import { nanos } from 'nats';
import { createLogger } from '@gateway/logger';
import { startNatsServer, waitFor, type TestNatsServer } from '@gateway/testing';
import { ACK, connectBus, nakAfter, runConsumer, STREAMS, type Bus } from './index';

const logger = createLogger({ name: 'bus-test', level: 'silent' });

describe('bus on a private nats-server', () => {
  let nats: TestNatsServer;
  let bus: Bus;
  beforeAll(async () => {
    nats = await startNatsServer();
    bus = await connectBus({ url: nats.url, name: 'bus-test', logger, streams: [STREAMS.events] });
  });
  afterAll(async () => {
    await bus.close();
    await nats.dispose();
  });

  it('drops a repeat with the same message id', async () => {
    const a = await bus.publish('events.test.t1.c1', '{"n":1}', { msgId: 'same-id' });
    const b = await bus.publish('events.test.t1.c1', '{"n":1}', { msgId: 'same-id' });
    expect(b.duplicate).toBe(true);
    expect(b.seq).toBe(a.seq);
  });

  it("publish answers the stream's ack, and refuses what no stream takes and what the stream refuses, each with its code", async () => {
    const ack = await bus.publish('events.ack.t1.c1', '{"n":1}', { msgId: 'ack-1' });
    expect(ack).toEqual({ stream: STREAMS.events.name, seq: expect.any(Number), duplicate: false });
    const stored = await bus.jsm.streams.getMessage(STREAMS.events.name, { seq: ack.seq });
    expect([stored.subject, stored.string(), stored.header.get('Nats-Msg-Id')]).toEqual(['events.ack.t1.c1', '{"n":1}', 'ack-1']);
    // no stream takes the subject: the server's no-responders status
    await expect(bus.publish('nobody.listens.here', '{}')).rejects.toMatchObject({ name: 'JetStreamPublishError', code: '503' });
    // the stream refuses: an expectation it does not meet (JetStream API error 10060)
    await expect(bus.publish('events.ack.t1.c1', '{}', { headers: { 'Nats-Expected-Stream': 'ANOTHER' } })).rejects.toMatchObject({
      name: 'JetStreamPublishError',
      code: '10060',
    });
  });

  it('publish fails a message nothing acks once its time is up, and every waiting one when the connection closes', async () => {
    // a plain subscriber takes the subject and never answers: no ack, no no-responders status
    const silent = bus.nc.subscribe('silent.subject');
    try {
      const started = performance.now();
      await expect(bus.publish('silent.subject', 'x', { timeoutMs: 300 })).rejects.toMatchObject({ code: 'TIMEOUT' });
      expect(performance.now() - started).toBeGreaterThanOrEqual(300);
      const other = await connectBus({ url: nats.url, name: 'bus-test-closing', logger });
      const waiting = other.publish('silent.subject', 'x', { timeoutMs: 60_000 });
      const outcome = waiting.then(
        () => 'acked',
        (e: { code?: string }) => e.code,
      );
      await other.close();
      expect(await outcome).toBe('CONNECTION_CLOSED');
      await expect(other.publish('events.ack.t1.c1', 'x')).rejects.toMatchObject({ code: 'CONNECTION_CLOSED' });
    } finally {
      silent.unsubscribe();
    }
  });

  it('publishLater stores without waiting, drops a repeat by its id, and reports what no stream took', async () => {
    const failures: string[] = [];
    const failed = (reason: string) => failures.push(reason);
    const before = (await bus.jsm.streams.info(STREAMS.events.name)).state.messages;
    bus.publishLater('events.later.t1.c1', '{"n":1}', { msgId: 'later-1', failed });
    bus.publishLater('events.later.t1.c1', '{"n":1}', { msgId: 'later-1', failed });
    bus.publishLater('events.later.t1.c1', '{"n":2}', { msgId: 'later-2', failed });
    bus.publishLater('nobody.listens.here', '{}', { failed });
    await waitFor(() => failures.length > 0, { timeoutMs: 10_000, what: 'the refusal' });
    await waitFor(async () => (await bus.jsm.streams.info(STREAMS.events.name)).state.messages === before + 2, {
      timeoutMs: 10_000,
      what: 'two notices stored',
    });
    const stored = await bus.jsm.streams.getMessage(STREAMS.events.name, { last_by_subj: 'events.later.t1.c1' });
    expect(stored.header.get('Nats-Msg-Id')).toBe('later-2');
    expect(failures).toEqual([expect.any(String)]);
  });

  it('sends what several turns of the microtask queue publish in one socket write, in order (coalesceWrites)', async () => {
    // the connection's socket writes, counted where nats.js makes them
    const transport = (bus.nc as unknown as { protocol: { transport: { send(frame: Uint8Array): void } } }).protocol.transport;
    const send = transport.send.bind(transport);
    let writes = 0;
    transport.send = (frame) => {
      writes += 1;
      send(frame);
    };
    try {
      const acks = [];
      for (let i = 0; i < 10; i++) {
        acks.push(bus.publish('events.coalesce.t1.c1', `{"n":${i}}`, { msgId: `coalesce-${i}` }));
        // each publish in its own turn, as handlers resumed by one event are
        await Promise.resolve();
      }
      const stored = await Promise.all(acks);
      expect(writes).toBe(1);
      expect(stored.map((a) => a.seq - stored[0].seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    } finally {
      transport.send = send;
    }
  });

  it('redelivers a nak after the delay and passes headers and request ids', async () => {
    await bus.publish('events.retry.t1.c1', 'x', { headers: { 'X-Event-Id': 'e1' } });
    const deliveries: Array<{ at: number; count: number; eventId: string | undefined }> = [];
    const consumer = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: 'retry-test',
      logger,
      config: { filter_subject: 'events.retry.>', max_deliver: 3 },
      handle: async (m) => {
        deliveries.push({ at: Date.now(), count: m.info.deliveryCount, eventId: m.headers?.get('X-Event-Id') });
        return deliveries.length < 2 ? nakAfter(300) : ACK;
      },
    });
    await waitFor(() => deliveries.length >= 2, { timeoutMs: 20_000, what: 'the redelivery' });
    await consumer.stop();
    expect(deliveries.map((d) => d.count)).toEqual([1, 2]);
    expect(deliveries[1].at - deliveries[0].at).toBeGreaterThanOrEqual(250);
    expect(deliveries.every((d) => d.eventId === 'e1')).toBe(true);
    const info = await bus.jsm.consumers.info(STREAMS.events.name, 'retry-test');
    expect(info.num_ack_pending).toBe(0);
  });

  it("keeps a slow handler's message from being redelivered while it works past ack_wait", async () => {
    await bus.publish('events.slow.t1.c1', 'slow');
    const seen: number[] = [];
    let done = false;
    // ack_wait 2 s, heartbeats every 1 s, the handler works 5 s: a heartbeat up to 1 s late on a loaded machine
    // still arrives in time, a missing one would let the server redeliver during the handler's second second
    const consumer = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: 'slow-test',
      logger,
      config: { filter_subject: 'events.slow.>', ack_wait: nanos(2000) },
      handle: async (m) => {
        seen.push(m.info.deliveryCount);
        await new Promise((r) => setTimeout(r, 5000));
        done = true;
        return ACK;
      },
    });
    await waitFor(() => done, { timeoutMs: 30_000, what: 'the slow handler to finish' });
    // the server's count of deliveries of this consumer: a redelivery during the handler would make it 2
    const info = await waitFor(
      async () => {
        const i = await bus.jsm.consumers.info(STREAMS.events.name, 'slow-test');
        return i.num_ack_pending === 0 ? i : undefined;
      },
      { timeoutMs: 10_000, what: 'the ack' },
    );
    await consumer.stop();
    expect([seen, info.delivered.consumer_seq, info.num_redelivered]).toEqual([[1], 1, 0]);
  }, 60_000);

  it('keeps messages across a server restart', async () => {
    await bus.publish('events.keep.t1.c1', 'kept');
    await nats.stop();
    await nats.start();
    await waitFor(() => bus.isConnected(), { timeoutMs: 10_000, what: 'reconnect' });
    const seen: string[] = [];
    const consumer = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: 'keep-test',
      logger,
      config: { filter_subject: 'events.keep.>' },
      handle: async (m) => {
        seen.push(m.string());
        return ACK;
      },
    });
    await waitFor(() => seen.length === 1, { timeoutMs: 15_000 });
    await consumer.stop();
    expect(seen).toEqual(['kept']);
  });
});
