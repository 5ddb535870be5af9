/**
 * The ingest path's floor (helpers-server.ts modes `floor-inbound`, `floor-router`, `floor-dispatcher`): the
 * processes and hops a provider webhook crosses on its way to the tenant's receiver, with none of the gateway's work
 * in them, on the gateway's own bus plumbing (`@gateway/bus`: the same stream settings, publishes awaited for the
 * stream's ack, pull consumers acking each message once handled):
 *   - floor-inbound: a Koa server that reads the body, publishes it to FLOOR_INBOUND (the body's hash as its
 *     message id, as the edge does) and answers 200 once the stream has it;
 *   - floor-router: consumes FLOOR_INBOUND (32 at once, as messaging's router), publishes one event per webhook to
 *     FLOOR_EVENTS and acks;
 *   - floor-dispatcher: consumes FLOOR_EVENTS (128 at once, as the dispatcher), POSTs each event to the receiver
 *     and acks once it answered.
 * No signature check, parsing into statuses, routing to a client, database, event envelope, signing, delivery
 * record, log line or metric: whatever the gateway does beyond this floor is its own work.
 */
import { createHash } from 'node:crypto';
import Koa from 'koa';
import { Agent, request } from 'undici';
import { ACK, connectBus, runConsumer, STREAMS } from '@gateway/bus';
import { createLogger } from '@gateway/logger';

const logger = createLogger({ name: 'ingest-floor', level: 'silent' });

/** The floor's streams: the gateway's own settings under names and subjects of their own. */
export const FLOOR_STREAMS = {
  inbound: { ...STREAMS.providerInbound, name: 'FLOOR_INBOUND', subjects: ['floor.inbound.>'] },
  events: { ...STREAMS.events, name: 'FLOOR_EVENTS', subjects: ['floor.events.>'] },
};

const connect = (url: string, name: string) => connectBus({ url, name, logger, streams: [FLOOR_STREAMS.inbound, FLOOR_STREAMS.events] });

/** `floor-inbound <port> <natsUrl>` */
export async function floorInbound(port: number, natsUrl: string): Promise<void> {
  const bus = await connect(natsUrl, 'floor-inbound');
  const app = new Koa();
  app.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const c of ctx.req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    await bus.publish('floor.inbound.webhook', body, { msgId: createHash('sha256').update(body).digest('hex') });
    ctx.status = 200;
  });
  app.listen(port, '127.0.0.1');
}

/** `floor-router <port> <natsUrl>`: the port is only listened on, to say it is ready. */
export async function floorRouter(port: number, natsUrl: string): Promise<void> {
  const bus = await connect(natsUrl, 'floor-router');
  await runConsumer({
    bus,
    stream: FLOOR_STREAMS.inbound.name,
    durable: 'floor-router',
    logger,
    concurrency: 32,
    config: { max_ack_pending: 1000 },
    handle: async (m) => {
      await bus.publish('floor.events.webhook', m.data, { msgId: `floor-${m.seq}` });
      return ACK;
    },
  });
  listenReady(port);
}

/** `floor-dispatcher <port> <natsUrl> <receiverUrl>`: the port is only listened on, to say it is ready. */
export async function floorDispatcher(port: number, natsUrl: string, receiverUrl: string): Promise<void> {
  const bus = await connect(natsUrl, 'floor-dispatcher');
  const agent = new Agent({ connections: 64 });
  await runConsumer({
    bus,
    stream: FLOOR_STREAMS.events.name,
    durable: 'floor-dispatcher',
    logger,
    concurrency: 128,
    config: { max_ack_pending: 20_000 },
    handle: async (m) => {
      // an event type the receiver does not count (it counts the dispatch row's)
      const res = await request(receiverUrl, {
        method: 'POST',
        dispatcher: agent,
        body: m.data,
        headers: { 'content-type': 'application/json', 'x-event-type': 'floor' },
      });
      await res.body.dump();
      return ACK;
    },
  });
  listenReady(port);
}

function listenReady(port: number): void {
  new Koa().use((ctx) => void (ctx.status = 204)).listen(port, '127.0.0.1');
}
