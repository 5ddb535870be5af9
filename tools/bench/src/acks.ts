/**
 * `BENCH_ONLY=acks`: what acknowledging a JetStream message costs, by the way it is acknowledged (libs/bus
 * `runConsumer`). One nats-server (file storage, as the bench's stack), a stream of BENCH_ACK_MESSAGES small
 * messages, then for each way a fresh durable pull consumer drains it with 32 handlers at once (the inbound
 * router's concurrency), each handler doing nothing but acknowledge. Reported: messages per second, and CPU
 * per message of the client and of nats-server (from /proc), best of BENCH_ACK_ROUNDS rounds.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AckPolicy, connect, type JsMsg, type NatsConnection } from 'nats';
import { freePort, writeNatsServerConf } from '@gateway/testing';
import { startListening } from './processes';
import { fmt, table } from './report';

const MESSAGES = Number(process.env.BENCH_ACK_MESSAGES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ACK_ROUNDS ?? 3);
const CONCURRENCY = 32;

export interface AckResult {
  way: string;
  rate: number;
  clientMs: number;
  serverMs: number;
}

/** Acknowledges one message; `flushes` is the shared flush of the "ack, then one flush per batch" way. */
type Acker = (m: JsMsg, nc: NatsConnection) => Promise<void>;

/** Coalesced flush: every ack sent before it rides on one PING/PONG round trip. */
function coalescedFlush(): Acker {
  let pending: Promise<void> | undefined;
  return async (m, nc) => {
    m.ack();
    pending ??= Promise.resolve().then(() => {
      const p = nc.flush();
      pending = undefined;
      return p;
    });
    await pending;
  };
}

const WAYS: Array<{ way: string; acker: () => Acker }> = [
  { way: '`ackAck()` per message (request/reply: the server answers once the ack is processed)', acker: () => (m) => m.ackAck().then(() => undefined) },
  { way: '`ack()` per message (no answer)', acker: () => async (m) => m.ack() },
  { way: '`ack()` per message, one `flush()` (PING/PONG) per batch of acks sent together', acker: coalescedFlush },
];

export async function acksBench(natsBin: string, log: (m: string) => void): Promise<AckResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'gw-acks-'));
  mkdirSync(join(dir, 'nats'));
  const port = await freePort();
  const server = await startListening(
    'nats-server',
    natsBin,
    [...writeNatsServerConf(join(dir, 'nats')), '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(dir, 'nats')],
    process.env,
    port,
  );
  const nc = await connect({ servers: `127.0.0.1:${port}`, noAsyncTraces: true });
  const best = new Map<string, AckResult>();
  try {
    const jsm = await nc.jetstreamManager();
    const js = nc.jetstream();
    await jsm.streams.add({ name: 'ACKS', subjects: ['acks.>'] });
    const body = new TextEncoder().encode(JSON.stringify({ n: 0, pad: 'x'.repeat(400) }));
    for (let i = 0; i < MESSAGES; i += 1000) await Promise.all(Array.from({ length: Math.min(1000, MESSAGES - i) }, () => js.publish('acks.one', body)));
    for (let round = 0; round < ROUNDS; round++) {
      for (const { way, acker } of WAYS) {
        const durable = `d${round}_${WAYS.findIndex((w) => w.way === way)}`;
        await jsm.consumers.add('ACKS', { durable_name: durable, ack_policy: AckPolicy.Explicit, max_ack_pending: 1000 });
        const ack = acker();
        const consumer = await js.consumers.get('ACKS', durable);
        const cpu0 = process.cpuUsage();
        const server0 = server.cpuSeconds();
        const t0 = performance.now();
        const messages = await consumer.consume({ max_messages: CONCURRENCY });
        let done = 0;
        const inFlight = new Set<Promise<void>>();
        for await (const m of messages) {
          if (inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
          const p: Promise<void> = ack(m, nc).finally(() => inFlight.delete(p));
          inFlight.add(p);
          if (++done === MESSAGES) break;
        }
        await Promise.all(inFlight);
        await nc.flush();
        const seconds = (performance.now() - t0) / 1000;
        const cpu = process.cpuUsage(cpu0);
        const info = await jsm.consumers.info('ACKS', durable);
        if (info.num_ack_pending !== 0) log(`acks: ${info.num_ack_pending} still pending after "${way}"`);
        const r = {
          way,
          rate: MESSAGES / seconds,
          clientMs: (cpu.user + cpu.system) / 1000 / MESSAGES,
          serverMs: ((server.cpuSeconds() - server0) * 1000) / MESSAGES,
        };
        const prev = best.get(way);
        if (!prev || r.clientMs + r.serverMs < prev.clientMs + prev.serverMs) best.set(way, r);
        log(`acks: ${way.slice(0, 40)}… ${fmt(r.rate)}/s, client ${fmt(r.clientMs, 3)} ms, server ${fmt(r.serverMs, 3)} ms`);
        await jsm.consumers.delete('ACKS', durable);
      }
    }
  } finally {
    await nc.close();
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return [...best.values()];
}

export function acksReport(results: AckResult[]): string {
  return table(
    ['Acknowledgement', 'Messages/s', 'Client CPU ms per message', 'nats-server CPU ms per message'],
    results.map((r) => [r.way, fmt(r.rate), fmt(r.clientMs, 3), fmt(r.serverMs, 3)]),
  );
}
