import { createLogger } from '@gateway/logger';
import { startNatsServer, waitFor, type TestNatsServer } from '@gateway/testing';
import { ACK, connectBus, runConsumer, STREAMS, type Bus } from './index';

const logger = createLogger({ name: 'bus-lag-test', level: 'silent' });

describe('consumer lag reporting', () => {
  let nats: TestNatsServer;
  let bus: Bus;
  beforeAll(async () => {
    nats = await startNatsServer();
    bus = await connectBus({ url: nats.url, name: 'bus-lag-test', logger, streams: [STREAMS.events] });
  });
  afterAll(async () => {
    await bus.close();
    await nats.dispose();
  });

  it("reports the durable consumer's backlog from its info until the consumer stops", async () => {
    for (let i = 0; i < 5; i++) await bus.publish(`events.lag.t1.c${i}`, String(i));
    const reports: Array<{ stream: string; consumer: string; pending: number; ackPending: number }> = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const consumer = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: 'lag-test',
      logger,
      concurrency: 1,
      config: { filter_subject: 'events.lag.>' },
      lagIntervalMs: 100,
      lag: (stream, name, lag) => reports.push({ stream, consumer: name, ...lag }),
      handle: async () => {
        await gate;
        return ACK;
      },
    });
    // the first report is made before runConsumer returns: nothing acknowledged yet
    expect(reports.length).toBeGreaterThanOrEqual(1);
    expect(reports[0]).toMatchObject({ stream: 'EVENTS', consumer: 'lag-test' });
    expect(reports[0].pending + reports[0].ackPending).toBe(5);

    release();
    await waitFor(() => reports.some((r) => r.pending === 0 && r.ackPending === 0), { timeoutMs: 20_000, what: 'backlog drained' });
    await consumer.stop();
    const after = reports.length;
    await new Promise((r) => setTimeout(r, 350));
    expect(reports.length).toBeLessThanOrEqual(after + 1);
  });
});
