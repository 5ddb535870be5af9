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
import type { JsMsg } from 'nats';
import { ACK, connectBus, runConsumer, STREAMS, type Bus } from '@gateway/bus';
import { createLogger } from '@gateway/logger';
import { readBody } from './read-body';

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
    const body = await readBody(ctx.req);
    await bus.publish('floor.inbound.webhook', body, { msgId: createHash('sha256').update(body).digest('hex') });
    ctx.status = 200;
  });
  app.listen(port, '127.0.0.1');
}

/** `floor-router <port> <natsUrl>`: the port is only listened on, to say it is ready. */
export async function floorRouter(port: number, natsUrl: string): Promise<void> {
  await floorConsumer(port, natsUrl, { name: 'floor-router', stream: FLOOR_STREAMS.inbound.name, concurrency: 32, maxAckPending: 1000 }, async (m, bus) => {
    await bus.publish('floor.events.webhook', m.data, { msgId: `floor-${m.seq}` });
  });
}

/** `floor-dispatcher <port> <natsUrl> <receiverUrl>`: the port is only listened on, to say it is ready. */
export async function floorDispatcher(port: number, natsUrl: string, receiverUrl: string): Promise<void> {
  const agent = new Agent({ connections: 64 });
  await floorConsumer(port, natsUrl, { name: 'floor-dispatcher', stream: FLOOR_STREAMS.events.name, concurrency: 128, maxAckPending: 20_000 }, async (m) => {
    // an event type the receiver does not count (it counts the dispatch row's)
    const res = await request(receiverUrl, {
      method: 'POST',
      dispatcher: agent,
      body: m.data,
      headers: { 'content-type': 'application/json', 'x-event-type': 'floor' },
    });
    await res.body.dump();
  });
}

/** A durable consumer of `stream` (`concurrency` handled at once, as the gateway's), acking what `handle` finished; then listens on `port`. */
async function floorConsumer(
  port: number,
  natsUrl: string,
  c: { name: string; stream: string; concurrency: number; maxAckPending: number },
  handle: (m: JsMsg, bus: Bus) => Promise<void>,
): Promise<void> {
  const bus = await connect(natsUrl, c.name);
  await runConsumer({
    bus,
    stream: c.stream,
    durable: c.name,
    logger,
    concurrency: c.concurrency,
    config: { max_ack_pending: c.maxAckPending },
    handle: async (m) => {
      await handle(m, bus);
      return ACK;
    },
  });
  new Koa().use((ctx) => void (ctx.status = 204)).listen(port, '127.0.0.1');
}
