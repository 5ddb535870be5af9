import { connect, headers as natsHeaders, type JetStreamClient, type JetStreamManager, type MsgHdrs, type NatsConnection, type PubAck, type StreamConfig } from 'nats';
import { currentRequestId, type Logger } from '@gateway/logger';

export const HEADER_REQUEST_ID = 'X-Request-Id';

export interface Bus {
  nc: NatsConnection;
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Publishes to JetStream and waits for the stream's ack; msgId makes repeats within the window no-ops. */
  publish(subject: string, data: Uint8Array | string, opts?: { msgId?: string; headers?: Record<string, string>; timeoutMs?: number }): Promise<PubAck>;
  isConnected(): boolean;
  /** Drains subscriptions and closes the connection. */
  close(): Promise<void>;
}

export interface ConnectBusOptions {
  url: string;
  name: string;
  logger: Logger;
  /** Streams this process needs; created or updated at start. */
  streams?: Array<Partial<StreamConfig> & { name: string }>;
}

const enc = new TextEncoder();

export async function connectBus(opts: ConnectBusOptions): Promise<Bus> {
  const nc = await connect({
    servers: opts.url,
    name: opts.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    pingInterval: 10_000,
  });
  let connected = true;
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') connected = false;
      if (s.type === 'reconnect') connected = true;
      if (s.type === 'disconnect' || s.type === 'reconnect' || s.type === 'error') opts.logger.warn({ nats: s.type, data: String(s.data) }, 'nats connection status');
    }
  })();
  const jsm = await nc.jetstreamManager();
  for (const s of opts.streams ?? []) await ensureStream(jsm, s);
  const js = nc.jetstream();
  let closed = false;
  return {
    nc,
    js,
    jsm,
    publish(subject, data, o = {}) {
      const h = natsHeaders();
      const rid = currentRequestId();
      if (rid) h.set(HEADER_REQUEST_ID, rid);
      for (const [k, v] of Object.entries(o.headers ?? {})) h.set(k, v);
      return js.publish(subject, typeof data === 'string' ? enc.encode(data) : data, {
        msgID: o.msgId,
        headers: h,
        timeout: o.timeoutMs ?? 5_000,
      });
    },
    isConnected: () => connected && !closed && !nc.isClosed(),
    async close() {
      if (closed) return;
      closed = true;
      await nc.drain().catch(() => nc.close());
    },
  };
}

/** info → add when missing → update when the config differs (add with a different config fails). */
export async function ensureStream(jsm: JetStreamManager, cfg: Partial<StreamConfig> & { name: string }): Promise<void> {
  try {
    await jsm.streams.info(cfg.name);
    await jsm.streams.update(cfg.name, cfg);
  } catch (e) {
    if (!/stream not found/i.test((e as Error).message)) throw e;
    await jsm.streams.add(cfg);
  }
}

export function headerValue(h: MsgHdrs | undefined, name: string): string | undefined {
  const v = h?.get(name);
  return v ? v : undefined;
}
