import { AckPolicy, DeliverPolicy, nanos, type ConsumerConfig, type ConsumerMessages, type JsMsg } from 'nats';
import { normalizeRequestId, runWithContext, type Logger } from '@gateway/logger';
import { HEADER_REQUEST_ID, headerValue, whileJetStreamSettles, type Bus } from './bus';

/** What a handler decides for one message. Retries are JetStream redeliveries, never in-memory timers. */
export type Outcome = { ack: true } | { nak: number } | { term: true };
export const ACK: Outcome = { ack: true };
export const TERM: Outcome = { term: true };
export const nakAfter = (ms: number): Outcome => ({ nak: ms });

export interface RunConsumerOptions {
  bus: Bus;
  stream: string;
  durable: string;
  logger: Logger;
  /** Extra consumer settings (filter_subject, ack_wait, max_deliver, max_ack_pending...). */
  config?: Partial<ConsumerConfig>;
  /** Messages handled at once. */
  concurrency?: number;
  handle(msg: JsMsg): Promise<Outcome>;
  /** Told the consumer's backlog (read from its info) at start and every `lagIntervalMs`: pass `metrics.consumerLag`. */
  lag?: ConsumerLagObserver;
  /** Default 5000. */
  lagIntervalMs?: number;
}

/** `pending`: stream messages not yet delivered to the consumer; `ackPending`: delivered, not yet acknowledged. */
export type ConsumerLagObserver = (stream: string, consumer: string, lag: { pending: number; ackPending: number }) => void;

export interface RunningConsumer {
  /** Stops pulling, waits for in-flight handlers (they ack or nak), then returns. */
  stop(): Promise<void>;
  inFlight(): number;
}

export async function ensureConsumer(bus: Bus, stream: string, durable: string, config: Partial<ConsumerConfig> = {}): Promise<void> {
  const cfg: Partial<ConsumerConfig> = {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(30_000),
    max_deliver: -1,
    ...config,
  };
  // the replica count is left to the stream's (JETSTREAM_REPLICAS): the server moves durables with their stream
  await whileJetStreamSettles(async () => {
    try {
      await bus.jsm.consumers.info(stream, durable);
      await bus.jsm.consumers.update(stream, durable, cfg);
    } catch (e) {
      if (!/consumer not found/i.test((e as Error).message)) throw e;
      await bus.jsm.consumers.add(stream, cfg);
    }
  });
}

/**
 * A durable pull consumer with bounded concurrency. An exception in a handler naks the message after a
 * short delay (it is redelivered, never dropped). When heartbeats are missed (server restart), the pull is
 * recreated.
 */
export async function runConsumer(opts: RunConsumerOptions): Promise<RunningConsumer> {
  const concurrency = opts.concurrency ?? 16;
  await ensureConsumer(opts.bus, opts.stream, opts.durable, opts.config);
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let messages: ConsumerMessages | undefined;
  const slotFreed: Array<() => void> = [];

  // handlers that run long tell the server they are still working, so their messages are not redelivered to
  // another replica meanwhile: one timer for all of them, at half of ack_wait (nanoseconds in the config)
  const ackWaitMs = opts.config?.ack_wait ? Number(opts.config.ack_wait) / 1e6 : 30_000;
  const handling = new Set<JsMsg>();
  const heartbeat = setInterval(() => handling.forEach((m) => m.working()), Math.max(ackWaitMs / 2, 500));
  heartbeat.unref();
  const process = async (m: JsMsg) => {
    const requestId = normalizeRequestId(headerValue(m.headers, HEADER_REQUEST_ID));
    await runWithContext({ requestId }, async () => {
      let outcome: Outcome;
      handling.add(m);
      try {
        outcome = await opts.handle(m);
      } catch (e) {
        opts.logger.error({ err: e, stream: opts.stream, seq: m.seq }, 'consumer handler failed; redelivering');
        outcome = nakAfter(1000);
      } finally {
        handling.delete(m);
      }
      try {
        if ('ack' in outcome) await m.ackAck().catch(() => m.ack());
        else if ('term' in outcome) m.term();
        else m.nak(outcome.nak);
      } catch (e) {
        opts.logger.warn({ err: e, seq: m.seq }, 'could not settle message; it will be redelivered');
      }
    });
  };

  const loop = async () => {
    while (!stopping) {
      try {
        const consumer = await opts.bus.js.consumers.get(opts.stream, opts.durable);
        messages = await consumer.consume({ max_messages: concurrency });
        const current = messages;
        void (async () => {
          for await (const s of await current.status()) {
            if (s.type === 'heartbeats_missed' && Number(s.data) >= 2) current.stop();
          }
        })().catch(() => undefined);
        for await (const m of current) {
          while (inFlight.size >= concurrency) await new Promise<void>((r) => slotFreed.push(r));
          const p = process(m).finally(() => {
            inFlight.delete(p);
            slotFreed.shift()?.();
          });
          inFlight.add(p);
          if (stopping) break;
        }
      } catch (e) {
        if (stopping) break;
        opts.logger.warn({ err: e, stream: opts.stream, durable: opts.durable }, 'consumer interrupted; retrying');
      }
      if (!stopping) await new Promise((r) => setTimeout(r, 500));
    }
  };
  const loopDone = loop();

  // consumer lag for metrics: the server's view of the durable, shared by every replica
  let lagTimer: NodeJS.Timeout | undefined;
  const reportLag = async () => {
    try {
      const info = await opts.bus.jsm.consumers.info(opts.stream, opts.durable);
      opts.lag?.(opts.stream, opts.durable, { pending: info.num_pending, ackPending: info.num_ack_pending });
    } catch {
      // the bus may be reconnecting: the next tick reports
    }
  };
  if (opts.lag) {
    await reportLag();
    const tick = () => {
      lagTimer = setTimeout(() => void reportLag().finally(() => !stopping && tick()), opts.lagIntervalMs ?? 5000);
      lagTimer.unref();
    };
    tick();
  }

  return {
    inFlight: () => inFlight.size,
    async stop() {
      stopping = true;
      clearTimeout(lagTimer);
      messages?.stop();
      await Promise.allSettled([...inFlight]);
      clearInterval(heartbeat);
      await loopDone.catch(() => undefined);
    },
  };
}
