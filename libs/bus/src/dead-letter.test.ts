import { createLogger } from '@gateway/logger';
import { startNatsServer, waitFor, type TestNatsServer } from '@gateway/testing';
import { ACK, connectBus, deadLetterNow, deadLetterSubject, listDeadLetters, nakAfter, replayDeadLetters, runConsumer, STREAMS, type Bus } from './index';

const logger = createLogger({ name: 'dead-letter-test', level: 'silent' });

describe('dead letters: a message that keeps failing is set aside after a bounded number of deliveries', () => {
  let nats: TestNatsServer;
  let bus: Bus;
  beforeAll(async () => {
    nats = await startNatsServer();
    bus = await connectBus({ url: nats.url, name: 'dead-letter-test', logger, streams: [STREAMS.events, STREAMS.deadLetter] });
  });
  afterAll(async () => {
    await bus.close();
    await nats.dispose();
  });

  it('moves a message that throws on every delivery to DEAD_LETTER with the error and its headers, counts it, and replays it', async () => {
    await bus.publish('events.poison.t1.c1', '{"n":1}', { headers: { 'X-Event-Id': 'e-poison' } });
    await bus.publish('events.poison.t1.c2', '{"n":2}', { headers: { 'X-Event-Id': 'e-fine' } });
    let healed = false;
    const seen: Array<{ data: string; count: number }> = [];
    const counted: Array<[string, string]> = [];
    const consumer = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: 'poison-test',
      logger,
      config: { filter_subject: 'events.poison.>', max_deliver: 3 },
      deadLettered: (stream, name) => counted.push([stream, name]),
      handle: async (m) => {
        seen.push({ data: m.string(), count: m.info.deliveryCount });
        if (m.string() === '{"n":1}' && !healed) throw new Error('cannot use entry[0].changes');
        return ACK;
      },
    });
    await waitFor(async () => (await listDeadLetters(bus, { stream: STREAMS.events.name })).length === 1, { timeoutMs: 30_000, what: 'dead letter' });
    const info = await bus.jsm.consumers.info(STREAMS.events.name, 'poison-test');
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
    expect(seen.filter((s) => s.data === '{"n":1}').map((s) => s.count)).toEqual([1, 2, 3]);
    expect(counted).toEqual([['EVENTS', 'poison-test']]);

    const [dead] = await listDeadLetters(bus, { stream: STREAMS.events.name });
    expect(dead).toMatchObject({
      subject: deadLetterSubject('EVENTS'),
      source: { stream: 'EVENTS', subject: 'events.poison.t1.c1', consumer: 'poison-test', deliveries: 3 },
      error: 'cannot use entry[0].changes',
      data: '{"n":1}',
    });
    expect(dead.headers['X-Event-Id']).toBe('e-poison');

    // once the cause is fixed an operator replays it: republished to its subject with its own headers, removed from DEAD_LETTER
    healed = true;
    const replayed = await replayDeadLetters(bus, { stream: STREAMS.events.name });
    expect(replayed).toEqual({ replayed: 1, failed: 0 });
    await waitFor(() => seen.filter((s) => s.data === '{"n":1}').length === 4, { timeoutMs: 30_000, what: 'replayed delivery' });
    expect(await listDeadLetters(bus, { stream: STREAMS.events.name })).toEqual([]);
    await consumer.stop();
  });

  it('also sets aside a message the handler still naks on its last delivery, and leaves terms alone', async () => {
    await bus.publish('events.naks.t1.c1', 'nak-me');
    const consumer = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: 'nak-test',
      logger,
      config: { filter_subject: 'events.naks.>', max_deliver: 2 },
      handle: async () => nakAfter(50),
    });
    await waitFor(async () => (await listDeadLetters(bus, { stream: STREAMS.events.name })).some((d) => d.data === 'nak-me'), {
      timeoutMs: 30_000,
      what: 'dead letter of a nak',
    });
    const dead = (await listDeadLetters(bus, { stream: STREAMS.events.name })).find((d) => d.data === 'nak-me')!;
    expect(dead.error).toMatch(/not acknowledged after 2 deliveries/);
    await consumer.stop();
  });

  it('sets aside at once a message its handler declares unusable', async () => {
    await bus.publish('events.unusable.t1.c1', 'not an envelope');
    const deliveries: number[] = [];
    const consumer = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: 'unusable-test',
      logger,
      config: { filter_subject: 'events.unusable.>' },
      handle: async (m) => {
        deliveries.push(m.info.deliveryCount);
        return deadLetterNow('not a webhook envelope');
      },
    });
    await waitFor(async () => (await listDeadLetters(bus, { stream: STREAMS.events.name })).some((d) => d.data === 'not an envelope'), {
      timeoutMs: 30_000,
      what: 'dead letter',
    });
    expect(deliveries).toEqual([1]);
    const dead = (await listDeadLetters(bus, { stream: STREAMS.events.name })).find((d) => d.data === 'not an envelope')!;
    expect(dead.error).toBe('not a webhook envelope');
    await consumer.stop();
  });
});
