import { AckPolicy, DeliverPolicy, nanos, type ConsumerConfig, type ConsumerMessages, type JsMsg } from 'nats';
import { normalizeRequestId, runWithContext, type Logger } from '@gateway/logger';
import { extractTraceContext, inSpan, SpanKind, SpanStatusCode } from '@gateway/telemetry';
import { HEADER_REQUEST_ID, headerValue, whileJetStreamSettles, type Bus } from './bus';
import { deadLetter } from './dead-letter';

/** What a handler decides for one message. Retries are JetStream redeliveries, never in-memory timers. */
/** `deadLetter`: the handler knows the message can never be handled; it goes to DEAD_LETTER with this reason now. */
export type Outcome = { ack: true } | { nak: number } | { term: true } | { deadLetter: string };
export const ACK: Outcome = { ack: true };
export const TERM: Outcome = { term: true };
export const nakAfter = (ms: number): Outcome => ({ nak: ms });
export const deadLetterNow = (reason: string): Outcome => ({ deadLetter: reason });
/** Redelivery delay after a handler exception: doubling from 1 s to 30 s, so a dependency outage of minutes is ridden out. */
const failureBackoffMs = (delivery: number) => Math.min(1000 * 2 ** Math.max(0, delivery - 1), 30_000);

export interface RunConsumerOptions {
  bus: Bus;
  stream: string;
  durable: string;
  logger: Logger;
  /**
   * Extra consumer settings (filter_subject, ack_wait, max_deliver, max_ack_pending...). `max_deliver` is the
   * number of deliveries a message gets before it goes to DEAD_LETTER (default DEFAULT_MAX_DELIVER; never unbounded).
   */
  config?: Partial<ConsumerConfig>;
  /** Messages handled at once. */
  concurrency?: number;
  handle(msg: JsMsg): Promise<Outcome>;
  /** Told the consumer's backlog (read from its info) at start and every `lagIntervalMs`: pass `metrics.consumerLag`. */
  lag?: ConsumerLagObserver;
  /** Default 5000. */
  lagIntervalMs?: number;
  /** Told each message set aside in DEAD_LETTER: pass `metrics.deadLettered`. */
  deadLettered?: (stream: string, consumer: string) => void;
}

/** Deliveries of a message before it is dead-lettered, unless the consumer says otherwise. */
export const DEFAULT_MAX_DELIVER = 10;
/**
 * Deliveries the server allows beyond `max_deliver`, used only when dead-lettering itself failed (bus trouble):
 * the message comes back and is dead-lettered then, instead of being dropped by the server.
 */
const DEAD_LETTER_SPARE_DELIVERIES = 5;

/**
 * How long one pull request lives. A pull is held by the durable's leader: when that leader changes (a NATS
 * node lost, a stream or consumer just created and still electing) the pull is gone without an answer, and
 * the client notices only through missed idle heartbeats (half of this, two missed). nats.js's default of
 * 30 s left a replica idle for up to 30 s after a failover while the others did all the work.
 */
const PULL_EXPIRES_MS = 5_000;

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
    ...config,
    max_deliver: (config.max_deliver && config.max_deliver > 0 ? config.max_deliver : DEFAULT_MAX_DELIVER) + DEAD_LETTER_SPARE_DELIVERIES,
  };
  // the replica count is left to the stream's (JETSTREAM_REPLICAS): the server moves durables with their stream
  await whileJetStreamSettles(async () => {
    try {
      await bus.jsm.consumers.info(stream, durable);
      // where a durable starts cannot change (one made again after a replica move starts past its ack floor)
      const { deliver_policy: _policy, opt_start_seq: _seq, opt_start_time: _time, ...changeable } = cfg;
      await bus.jsm.consumers.update(stream, durable, changeable);
    } catch (e) {
      if (!/consumer not found/i.test((e as Error).message)) throw e;
      await bus.jsm.consumers.add(stream, cfg);
    }
  });
}

/**
 * Acknowledgements confirmed in batches (README, "Acknowledgements"): each ack is sent as it comes (`ack()`), and
 * the acks sent together are confirmed by one PING/PONG round trip (`flush()`): the server answers the PING only
 * after every message the connection sent before it, acks included. A handler continues once its ack is
 * confirmed; when the round trip fails (the connection dropped) the ack is sent again, as after a failed
 * `ackAck()` before. Against one `ackAck()` request per message, measured by `BENCH_ONLY=acks`: the same
 * outcome (an ack that never arrives means a redelivery, never a loss) for about half the CPU per message.
 */
export class AckFlusher {
  private confirming: Promise<void> | undefined;

  constructor(private readonly bus: Pick<Bus, 'nc'>) {}

  async ack(m: JsMsg): Promise<void> {
    m.ack();
    // the acks of this turn of the event loop share one PING, sent after all of them
    this.confirming ??= Promise.resolve().then(() => {
      this.confirming = undefined;
      return this.bus.nc.flush();
    });
    await this.confirming.catch(() => m.ack());
  }
}

/**
 * A durable pull consumer with bounded concurrency. An exception in a handler naks the message after a
 * short delay (it is redelivered). A message still not acked on its `max_deliver`-th delivery (exception or
 * nak) goes to DEAD_LETTER with the error and is then acknowledged: nothing loops forever, nothing is dropped.
 * When heartbeats are missed (server restart), the pull is recreated.
 */
export async function runConsumer(opts: RunConsumerOptions): Promise<RunningConsumer> {
  const concurrency = opts.concurrency ?? 16;
  const maxDeliver = opts.config?.max_deliver && opts.config.max_deliver > 0 ? opts.config.max_deliver : DEFAULT_MAX_DELIVER;
  await ensureConsumer(opts.bus, opts.stream, opts.durable, opts.config);
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let messages: ConsumerMessages | undefined;
  const slotFreed: Array<() => void> = [];

  // handlers that run long tell the server they are still working, so their messages are not redelivered to
  // another replica meanwhile: one timer for all of them, at half of ack_wait (nanoseconds in the config)
  const ackWaitMs = opts.config?.ack_wait ? Number(opts.config.ack_wait) / 1e6 : 30_000;
  const handling = new Set<JsMsg>();
  const acks = new AckFlusher(opts.bus);
  const heartbeat = setInterval(() => handling.forEach((m) => m.working()), Math.max(ackWaitMs / 2, 500));
  heartbeat.unref();
  const process = async (m: JsMsg) => {
    const requestId = normalizeRequestId(headerValue(m.headers, HEADER_REQUEST_ID));
    // the message's traceparent (set by bus.publish) is the parent: the handler's work continues the publisher's trace
    const parent = extractTraceContext((name) => headerValue(m.headers, name));
    const attributes = {
      'messaging.system': 'nats',
      'messaging.operation.type': 'process',
      'messaging.destination.name': m.subject,
      'messaging.consumer.group.name': opts.durable,
      'messaging.message.delivery_count': m.info.deliveryCount,
    };
    await runWithContext({ requestId }, () =>
      inSpan(`process ${opts.stream}`, { kind: SpanKind.CONSUMER, parent, attributes }, async (span) => {
        let outcome: Outcome;
        let error: string | undefined;
        handling.add(m);
        try {
          outcome = await opts.handle(m);
        } catch (e) {
          error = e instanceof Error ? e.message : String(e);
          opts.logger.error({ err: e, stream: opts.stream, seq: m.seq, delivery: m.info.deliveryCount }, 'consumer handler failed; redelivering');
          outcome = nakAfter(failureBackoffMs(m.info.deliveryCount));
        } finally {
          handling.delete(m);
        }
        if ('deadLetter' in outcome || ('nak' in outcome && m.info.deliveryCount >= maxDeliver)) {
          const reason = 'deadLetter' in outcome ? outcome.deadLetter : (error ?? `not acknowledged after ${m.info.deliveryCount} deliveries`);
          try {
            await deadLetter(opts.bus, m, { stream: opts.stream, consumer: opts.durable }, reason);
            opts.deadLettered?.(opts.stream, opts.durable);
            opts.logger.error({ stream: opts.stream, consumer: opts.durable, seq: m.seq, deliveries: m.info.deliveryCount }, 'message moved to DEAD_LETTER');
            // acknowledged (and confirmed) only once DEAD_LETTER holds it; a repeat is dropped there by its msg id
            outcome = ACK;
            span.setStatus({ code: SpanStatusCode.ERROR, message: `dead-lettered: ${reason}` });
            span.setAttribute('messaging.dead_lettered', true);
          } catch (e) {
            opts.logger.error({ err: e, stream: opts.stream, seq: m.seq }, 'could not dead-letter a message; it will be redelivered');
            outcome = nakAfter(5000);
          }
        }
        span.setAttribute('messaging.outcome', Object.keys(outcome)[0]);
        if (error !== undefined) {
          span.recordException(error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: error });
        }
        try {
          if ('ack' in outcome) await acks.ack(m);
          else if ('term' in outcome) m.term();
          else if ('nak' in outcome) m.nak(outcome.nak);
        } catch (e) {
          opts.logger.warn({ err: e, seq: m.seq }, 'could not settle message; it will be redelivered');
        }
      }),
    );
  };

  const loop = async () => {
    while (!stopping) {
      try {
        const consumer = await opts.bus.js.consumers.get(opts.stream, opts.durable);
        messages = await consumer.consume({ max_messages: concurrency, expires: PULL_EXPIRES_MS });
        const current = messages;
        void (async () => {
          for await (const s of await current.status()) {
            // a pull with no one to hold it (no durable leader yet, or the durable was made again) is pulled
            // afresh from a new consume rather than left waiting for the heartbeats to be missed
            if ((s.type === 'heartbeats_missed' && Number(s.data) >= 2) || s.type === 'no_responders' || s.type === 'consumer_deleted') current.stop();
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
