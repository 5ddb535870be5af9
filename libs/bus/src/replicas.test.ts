import { createLogger } from '@gateway/logger';
import { startNatsCluster, waitFor, type TestNatsCluster } from '@gateway/testing';
import { ACK, connectBus, ensureConsumer, runConsumer, STREAMS, type Bus } from './index';

const logger = createLogger({ name: 'bus-replicas-test', level: 'silent' });

describe('JETSTREAM_REPLICAS on a 3-node JetStream cluster', () => {
  let cluster: TestNatsCluster;
  const buses: Bus[] = [];
  const bus = async (replicas: number, streams: Parameters<typeof connectBus>[0]['streams']) => {
    const b = await connectBus({ url: cluster.url, name: 'replicas-test', logger, streams, replicas });
    buses.push(b);
    return b;
  };
  beforeAll(async () => {
    cluster = await startNatsCluster(3);
  }, 60_000);
  afterAll(async () => {
    for (const b of buses) await b.close();
    await cluster.dispose();
  });

  it('creates streams and durable consumers with 3 replicas', async () => {
    const b = await bus(3, [STREAMS.events, STREAMS.providerInbound]);
    await ensureConsumer(b, STREAMS.events.name, 'r3-consumer');
    for (const name of [STREAMS.events.name, STREAMS.providerInbound.name]) {
      const info = await b.jsm.streams.info(name);
      expect([name, info.config.num_replicas, info.cluster?.replicas?.length]).toEqual([name, 3, 2]);
    }
    const c = await b.jsm.consumers.info(STREAMS.events.name, 'r3-consumer');
    expect(c.cluster?.replicas?.length).toBe(2);
  });

  it('moves a stream and its consumer from 1 to 3 replicas in place on restart, keeping messages and acks', async () => {
    const stream = STREAMS.webhookRetries.name;
    const first = await bus(1, [STREAMS.webhookRetries]);
    for (let i = 0; i < 50; i++) await first.publish(`webhook.retry.t1.c${i}`, String(i), { msgId: `m${i}` });
    await ensureConsumer(first, stream, 'scaled');
    const batch = await (await first.js.consumers.get(stream, 'scaled')).fetch({ max_messages: 10, expires: 5000 });
    let acked = 0;
    for await (const m of batch) {
      await m.ackAck();
      acked += 1;
    }
    expect(acked).toBe(10);
    const before = await first.jsm.streams.info(stream);
    expect([before.config.num_replicas, before.cluster?.replicas ?? []]).toEqual([1, []]);
    await first.close();

    // the same process started again with JETSTREAM_REPLICAS=3
    const second = await bus(3, [STREAMS.webhookRetries]);
    await ensureConsumer(second, stream, 'scaled');
    const after = await second.jsm.streams.info(stream);
    expect(after.config.num_replicas).toBe(3);
    expect(after.state.messages).toBe(50);
    // the consumer moved with its stream, and the new peers hold the data: once they are current, losing
    // the leader loses nothing
    await waitFor(
      async () => {
        const groups = [(await second.jsm.streams.info(stream)).cluster, (await second.jsm.consumers.info(stream, 'scaled')).cluster];
        return groups.every((g) => g?.leader && (g.replicas ?? []).length === 2 && g.replicas!.every((r) => r.current));
      },
      { timeoutMs: 30_000, intervalMs: 250, what: 'stream and consumer replicas current' },
    );
    // the durable was made again on the replicated stream (nats-server#6838), starting after its ack floor
    // its new leader counts what is pending once elected: read until it has (seen once as 0 right after the move)
    const state = async () => {
      const moved = await second.jsm.consumers.info(stream, 'scaled');
      return [moved.num_pending, moved.num_ack_pending, moved.config.opt_start_seq];
    };
    await waitFor(async () => (await state())[0] === 40, {
      timeoutMs: 30_000,
      intervalMs: 250,
      what: 'the moved consumer counting its pending messages',
    }).catch(() => undefined);
    expect(await state()).toEqual([40, 0, 11]);
    const leader = (await cluster.streamLeader(stream))!;
    await cluster.kill(leader);
    try {
      const survived = await waitFor(
        async () => {
          const i = await second.jsm.streams.info(stream);
          return i.cluster?.leader && i.cluster.leader !== leader ? i : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 250, what: 'a new stream leader' },
      );
      expect(survived.state.messages).toBe(50);
      const remaining = await waitFor(async () => (await second.jsm.consumers.info(stream, 'scaled')).num_pending, {
        timeoutMs: 30_000,
        intervalMs: 250,
        what: 'consumer on the new leader',
      });
      expect(remaining).toBe(40);
      const next = await (await second.js.consumers.get(stream, 'scaled')).next({ expires: 10_000 });
      expect(next?.seq).toBe(11);
    } finally {
      await cluster.start(leader);
    }
  }, 120_000);

  it("keeps a running consumer pulling when its durable loses its leader, well before the client library's 30 s pull expiry", async () => {
    const stream = STREAMS.providerInbound.name;
    const b = await bus(3, [STREAMS.providerInbound]);
    const seen = new Set<string>();
    const running = await runConsumer({ bus: b, stream, durable: 'leader-loss', logger, concurrency: 4, handle: async (m) => (seen.add(m.string()), ACK) });
    try {
      // the R3 stream and durable were just made: their first requests may time out while they elect leaders
      for (let i = 0; i < 5; i++) await whilePublishSettles(() => b.publish(`provider.inbound.p${i}`, `before-${i}`, { msgId: `before-${i}` }));
      await waitFor(() => seen.size >= 5 || undefined, { timeoutMs: 30_000, intervalMs: 100, what: 'the first messages' });
      const leader = await waitFor(async () => (await b.jsm.consumers.info(stream, 'leader-loss')).cluster?.leader || undefined, {
        timeoutMs: 30_000,
        intervalMs: 250,
        what: 'the consumer leader',
      });
      await cluster.kill(leader);
      try {
        await waitFor(
          async () => {
            const c = await b.jsm.consumers.info(stream, 'leader-loss').catch(() => undefined);
            return c?.cluster?.leader && c.cluster.leader !== leader ? true : undefined;
          },
          { timeoutMs: 30_000, intervalMs: 250, what: 'a new consumer leader' },
        );
        for (let i = 0; i < 5; i++) await whilePublishSettles(() => b.publish(`provider.inbound.p${i}`, `after-${i}`, { msgId: `after-${i}` }));
        // the pull held by the lost leader is gone without an answer: the consumer must pull again on its own
        await waitFor(() => (seen.size >= 10 ? true : undefined), { timeoutMs: 25_000, intervalMs: 100, what: 'the messages published after the leader loss' });
        expect([...seen].sort()).toEqual([...Array.from({ length: 5 }, (_, i) => `after-${i}`), ...Array.from({ length: 5 }, (_, i) => `before-${i}`)].sort());
      } finally {
        await cluster.start(leader);
      }
    } finally {
      await running.stop();
    }
  }, 120_000);
});

/** A publish right after a leader change can time out while the stream settles; it is sent again (same msg id). */
async function whilePublishSettles(fn: () => Promise<unknown>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await fn();
      return;
    } catch (e) {
      if (attempt >= 20) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}
