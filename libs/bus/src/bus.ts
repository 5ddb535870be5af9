import {
  connect,
  createInbox,
  DeliverPolicy,
  headers as natsHeaders,
  type JetStreamClient,
  type JetStreamManager,
  type Msg,
  type MsgHdrs,
  type ConsumerInfo,
  type NatsConnection,
  type PubAck,
  type StreamConfig,
} from 'nats';
import { currentRequestId, type Logger } from '@gateway/logger';
import { inSpan, injectTraceContext, SpanKind } from '@gateway/telemetry';
import { MAX_MESSAGE_BYTES } from './streams';
import { quietAnsweredRequests } from './answered-requests';

export const HEADER_REQUEST_ID = 'X-Request-Id';
/** On PROVIDER_INBOUND: hex sha256 of the raw provider body (also its Nats-Msg-Id). */
export const HEADER_BODY_SHA256 = 'X-Body-Sha256';

export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /**
   * Publishes to JetStream and waits for the stream's ack (rejects with a JetStreamPublishError: refused, no
   * stream takes the subject, or no ack within `timeoutMs`, default 5 s); msgId makes repeats within the window
   * no-ops. The ack comes to the connection's one ack subscription (JetStreamPublishes), not a request per message.
   */
  publish(subject: string, data: Uint8Array | string, opts?: { msgId?: string; headers?: Record<string, string>; timeoutMs?: number }): Promise<PubAck>;
  /**
   * Publishes to JetStream without waiting for the stream's ack, for what is best effort (a live notice): its ack
   * arrives on the same subscription as `publish`'s, and a message the stream refused or did not ack within
   * `timeoutMs` (default 5 s) is reported to `failed`. No promise per message. msgId makes repeats within the
   * window no-ops, as for `publish`.
   */
  publishLater(subject: string, data: string, opts: { msgId?: string; timeoutMs?: number; failed(reason: string): void }): void;
  isConnected(): boolean;
  /** Drains subscriptions and closes the connection. */
  close(): Promise<void>;
}

export interface ConnectBusOptions {
  /** One server URL, or several separated by commas (any of them gets the process in; it learns the rest). */
  url: string;
  name: string;
  logger: Logger;
  /** Streams this process needs; created or updated at start. */
  streams?: Array<Partial<StreamConfig> & { name: string }>;
  /**
   * Replicas of those streams (JETSTREAM_REPLICAS, default 1); durable consumers follow their stream's count.
   * A stream created with another count is updated in place at start: JetStream copies its messages to the
   * new peers.
   */
  replicas?: number;
}

const enc = new TextEncoder();

export async function connectBus(opts: ConnectBusOptions): Promise<Bus> {
  const nc = await connect({
    servers: opts.url
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean),
    name: opts.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
    // no Error (with its stack) captured for every request and JetStream publish/ack: ~3 % of the edge's and
    // the dispatcher's CPU under load (bench profiles); a timed-out request still rejects with a NatsError
    noAsyncTraces: true,
  });
  if (!coalesceWrites(nc)) opts.logger.warn('the nats client has changed inside: its writes are not coalesced (coalesceWrites)');
  if (!quietAnsweredRequests()) opts.logger.warn('the nats client has changed inside: answered requests still make an error each (quietAnsweredRequests)');
  let connected = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') connected = false;
      if (s.type === 'reconnect') connected = true;
      if (s.type === 'disconnect' || s.type === 'reconnect' || s.type === 'error')
        opts.logger.warn({ nats: s.type, data: String(s.data) }, 'nats connection status');
    }
  })();
  // a server left at the default max_payload (1 MB) refuses large provider webhooks (the edge answers 503, the
  // provider retries, then drops them): said at every start until it is raised
  const serverMax = nc.info?.max_payload ?? 0;
  if (serverMax < MAX_MESSAGE_BYTES)
    opts.logger.error(
      { max_payload: serverMax, needed: MAX_MESSAGE_BYTES },
      "nats-server's max_payload is below the gateway's largest message: set it (deploy/nats/gateway.conf) or large provider webhooks are refused",
    );
  // the manager's first request (account info) times out while a cluster elects its meta leader, e.g. a node
  // just restarted: a process starting then waits the election out rather than failing its start
  const jsm = await whileJetStreamSettles(() => nc.jetstreamManager());
  const replicas = opts.replicas ?? 1;
  for (const s of opts.streams ?? []) await ensureStream(jsm, { ...s, num_replicas: replicas });
  const js = nc.jetstream();
  let closed = false;
  const acks = new JetStreamPublishes(nc);
  return {
    nc,
    js,
    jsm,
    publish(subject, data, o = {}) {
      // a producer span, child of the active one; its traceparent goes in the headers (after the caller's, so a
      // stored traceparent, e.g. the outbox's, is replaced by this span, which continues that trace)
      return inSpan(
        `publish ${subjectName(subject)}`,
        {
          kind: SpanKind.PRODUCER,
          attributes: {
            'messaging.system': 'nats',
            'messaging.operation.type': 'send',
            'messaging.destination.name': subject,
            ...(o.msgId ? { 'messaging.message.id': o.msgId } : {}),
          },
        },
        () => {
          const h = natsHeaders();
          const rid = currentRequestId();
          if (rid) h.set(HEADER_REQUEST_ID, rid);
          for (const [k, v] of Object.entries(o.headers ?? {})) h.set(k, v);
          injectTraceContext((k, v) => h.set(k, v));
          if (o.msgId) h.set('Nats-Msg-Id', o.msgId);
          return acks.publish(subject, typeof data === 'string' ? enc.encode(data) : data, h, o.timeoutMs ?? 5_000);
        },
      );
    },
    publishLater(subject, data, o) {
      const h = natsHeaders();
      const rid = currentRequestId();
      if (rid) h.set(HEADER_REQUEST_ID, rid);
      if (o.msgId) h.set('Nats-Msg-Id', o.msgId);
      // a producer span (ended at once: nothing is waited for), its traceparent in the headers, as `publish` makes
      void inSpan(
        `publish ${subjectName(subject)}`,
        { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject } },
        async () => injectTraceContext((k, v) => h.set(k, v)),
      );
      acks.publishLater(subject, enc.encode(data), h, o.timeoutMs ?? 5_000, o.failed);
    },
    isConnected: () => connected && !closed && !nc.isClosed(),
    async close() {
      if (closed) return;
      closed = true;
      await nc.drain().catch(() => nc.close());
    },
  };
}

/** What coalesceWrites changes of the nats client (nats.js 2.x `ProtocolHandler`, not part of its API). */
interface ProtocolWrites {
  flushPending(): void;
  outbound: { size(): number };
  pendingLimit: number;
}

/**
 * Everything a process sends on the connection while it handles one I/O event goes out in one socket write.
 * nats.js writes what one turn of the microtask queue sent (`flushPending` in a microtask): the handlers of a
 * consumer resumed by one event (a commit, a batch of pulled messages) each publish and ack in their own turn,
 * so each made its own write, a syscall that on loopback also runs the server's receive path: about two writes
 * per webhook in the messaging service, the edge and the dispatcher, and in the bench's profiles a sixth of the
 * messaging service's busy time (`writeBuffer`). The write now waits for the event loop's check phase
 * (`setImmediate`, after the microtasks and the I/O of the same iteration): the same bytes in the same order,
 * later by less than one loop iteration, in fewer writes. Past the client's `pendingLimit` it writes at once,
 * as before. Answers false (and changes nothing) when the client is not shaped as expected (another version).
 */
export function coalesceWrites(nc: NatsConnection): boolean {
  const protocol = (nc as unknown as { protocol?: Partial<ProtocolWrites> }).protocol;
  if (!protocol || typeof protocol.flushPending !== 'function' || typeof protocol.outbound?.size !== 'function' || typeof protocol.pendingLimit !== 'number')
    return false;
  const p = protocol as ProtocolWrites;
  const writeNow = p.flushPending.bind(p);
  let scheduled: NodeJS.Immediate | undefined;
  const write = () => {
    scheduled = undefined;
    writeNow();
  };
  p.flushPending = () => {
    if (p.outbound.size() >= p.pendingLimit) writeNow();
    else scheduled ??= setImmediate(write);
  };
  return true;
}

/**
 * info → add when missing → update when it exists (add with a different config fails). The replica count is
 * part of the config, so a changed JETSTREAM_REPLICAS moves the stream in place; its durable consumers follow
 * the stream's count (moved from one replica, they are made again: see recreateDurable). Right after such a
 * move the stream elects its leader again: JetStream answers TIMEOUT or "temporarily unavailable" meanwhile,
 * which is waited out.
 */
export async function ensureStream(jsm: JetStreamManager, cfg: Partial<StreamConfig> & { name: string }): Promise<void> {
  const current = await whileJetStreamSettles(() =>
    jsm.streams.info(cfg.name).catch((e: Error) => {
      if (/stream not found/i.test(e.message)) return undefined;
      throw e;
    }),
  );
  if (!current) {
    await whileJetStreamSettles(() => jsm.streams.add(cfg));
    return;
  }
  const moved = cfg.num_replicas !== undefined && current.config.num_replicas !== cfg.num_replicas;
  // read while the single replica still holds every durable's state
  const durables = moved && current.config.num_replicas === 1 ? await whileJetStreamSettles(() => durableStates(jsm, cfg.name)) : [];
  await whileJetStreamSettles(() => jsm.streams.update(cfg.name, cfg));
  if (!moved) return;
  await settled(jsm, cfg.name, cfg.num_replicas!);
  for (const d of durables) await whileJetStreamSettles(() => recreateDurable(jsm, cfg.name, d));
}

/** The stream's durable consumers with their config and ack floor. */
async function durableStates(jsm: JetStreamManager, stream: string): Promise<ConsumerInfo[]> {
  const out: ConsumerInfo[] = [];
  for await (const c of jsm.consumers.list(stream)) if (c.config.durable_name) out.push(c);
  return out;
}

/**
 * nats-server before 2.11.4 (nats-io/nats-server#6838, fixed by #6851) can leave a durable that was moved
 * from 1 to more replicas with its stream without a leader for good once its old leader dies. A durable
 * created on the replicated stream does not have that flaw, so each one is made again in place: same name
 * and config, starting after the ack floor read before the move (what was acked in order stays acked;
 * anything acked past a gap, or acked by another process meanwhile, is delivered again, which consumers
 * dedupe as any redelivery).
 */
async function recreateDurable(jsm: JetStreamManager, stream: string, info: ConsumerInfo): Promise<void> {
  await jsm.consumers.delete(stream, info.name).catch((e: Error) => {
    if (!/consumer not found/i.test(e.message)) throw e;
  });
  const { num_replicas: _replicas, opt_start_time: _time, ...config } = info.config;
  await jsm.consumers.add(stream, { ...config, deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: info.ack_floor.stream_seq + 1 });
}

/** Until a moved stream has a leader and all its peers again. */
async function settled(jsm: JetStreamManager, stream: string, replicas: number): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const info = await jsm.streams.info(stream).catch(() => undefined);
    if (info?.cluster?.leader && (replicas === 1 || (info.cluster.replicas ?? []).length === replicas - 1)) return;
    if (Date.now() > deadline) throw new Error(`stream ${stream} has no leader with ${replicas} replicas after 60 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const TRANSIENT = /TIMEOUT|temporarily unavailable|no responders|no suitable peers|leader/i;

/** Runs a JetStream admin step again while the cluster answers with a transient error (for up to 60 s). */
export async function whileJetStreamSettles<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!TRANSIENT.test((e as Error).message) || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, Math.min(200 * 2 ** attempt, 2000)));
    }
  }
}

/** A span name of few values: the subject's first two tokens (`events.chat`, `provider.inbound`, `dead_letter.EVENTS`). */
export function subjectName(subject: string): string {
  return subject.split('.').slice(0, 2).join('.');
}

export function headerValue(h: MsgHdrs | undefined, name: string): string | undefined {
  const v = h?.get(name);
  return v ? v : undefined;
}

/** A JetStream publish the stream did not take: refused (its API error), no stream bound, or no ack in time. */
export class JetStreamPublishError extends Error {
  constructor(
    message: string,
    /** `TIMEOUT`, `503` (no stream took the subject), the API's `err_code`, or `CONNECTION_CLOSED`. */
    readonly code: string,
  ) {
    super(message);
    this.name = 'JetStreamPublishError';
  }
}

interface Waiting {
  until: number;
  acked?(ack: PubAck): void;
  failed(e: JetStreamPublishError): void;
}

/**
 * The JetStream publishes of this connection (issue 29): each goes out as a plain publish with its own reply
 * subject under one inbox (`<inbox>.<n>`), where JetStream sends its ack; one subscription reads every ack, and one
 * timer, running only while some publish waits, fails those not acked in time (checked four times a second).
 * nats.js's `js.publish` made a request per message instead (an entry in its request map, a timer, promises and
 * its wrappers): 30–37 µs of the publisher's CPU per awaited publish against 17–20 µs this way (through
 * `connectBus`, 64 in flight to a local nats-server). The stream's answer is read as `js.publish` reads it: a PubAck, an API error, or the server's
 * no-responders status when no stream takes the subject.
 */
class JetStreamPublishes {
  private readonly inbox: string;
  private readonly waiting = new Map<string, Waiting>();
  private next = 0;
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly nc: NatsConnection) {
    this.inbox = createInbox();
    const prefix = this.inbox.length + 1;
    nc.subscribe(`${this.inbox}.*`, {
      callback: (err, m) => {
        if (err) return;
        const token = m.subject.slice(prefix);
        const w = this.waiting.get(token);
        if (!w) return;
        this.waiting.delete(token);
        const answer = readAck(m);
        if (answer instanceof JetStreamPublishError) w.failed(answer);
        else w.acked?.(answer);
      },
    });
    void nc.closed().then(() => {
      this.closed = true;
      this.failAll(new JetStreamPublishError('the connection is closed', 'CONNECTION_CLOSED'));
    });
  }

  /** Resolves with the stream's ack; rejects with a JetStreamPublishError. */
  publish(subject: string, data: Uint8Array, headers: MsgHdrs, timeoutMs: number): Promise<PubAck> {
    return new Promise<PubAck>((resolve, reject) => this.send(subject, data, headers, timeoutMs, { until: 0, acked: resolve, failed: reject }));
  }

  /** Nothing waits: a refusal or a missing ack is reported to `failed`. */
  publishLater(subject: string, data: Uint8Array, headers: MsgHdrs, timeoutMs: number, failed: (reason: string) => void): void {
    this.send(subject, data, headers, timeoutMs, { until: 0, failed: (e) => failed(e.message) });
  }

  private send(subject: string, data: Uint8Array, headers: MsgHdrs, timeoutMs: number, w: Waiting): void {
    if (this.closed) return w.failed(new JetStreamPublishError('the connection is closed', 'CONNECTION_CLOSED'));
    const token = String(++this.next);
    w.until = performance.now() + timeoutMs;
    this.waiting.set(token, w);
    try {
      this.nc.publish(subject, data, { headers, reply: `${this.inbox}.${token}` });
    } catch (e) {
      this.waiting.delete(token);
      return w.failed(new JetStreamPublishError((e as Error).message, (e as { code?: string }).code ?? 'PUBLISH_FAILED'));
    }
    if (!this.sweeper) {
      this.sweeper = setInterval(() => this.sweep(), 250);
      this.sweeper.unref();
    }
  }

  private sweep(): void {
    const now = performance.now();
    for (const [token, w] of this.waiting) {
      if (w.until > now) continue;
      this.waiting.delete(token);
      w.failed(new JetStreamPublishError('not acknowledged in time', 'TIMEOUT'));
    }
    if (!this.waiting.size) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  private failAll(e: JetStreamPublishError): void {
    const all = [...this.waiting.values()];
    this.waiting.clear();
    for (const w of all) w.failed(e);
  }
}

/**
 * The stream's answer to a publish: a PubAck `{"stream":…,"seq":…,"duplicate":…}`, an API error `{"error":{…}}`, or
 * a status without data (503: no stream takes the subject).
 */
function readAck(m: Msg): PubAck | JetStreamPublishError {
  if (m.headers?.hasError || m.data.length === 0) {
    const code = m.headers?.code ? String(m.headers.code) : '503';
    return new JetStreamPublishError(m.headers?.description || 'no stream took the message', code);
  }
  let a: { stream?: string; seq?: number; duplicate?: boolean; domain?: string; error?: { code?: number; err_code?: number; description?: string } };
  try {
    a = JSON.parse(new TextDecoder().decode(m.data)) as typeof a;
  } catch {
    return new JetStreamPublishError('the stream answered something that is not JSON', 'BAD_ACK');
  }
  if (a.error)
    return new JetStreamPublishError(a.error.description || 'the stream refused the message', String(a.error.err_code ?? a.error.code ?? 'API_ERROR'));
  if (typeof a.seq !== 'number' || typeof a.stream !== 'string') return new JetStreamPublishError('the stream answered without a sequence', 'BAD_ACK');
  return { stream: a.stream, seq: a.seq, duplicate: a.duplicate === true, ...(a.domain ? { domain: a.domain } : {}) };
}
