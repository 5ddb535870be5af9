/**
 * `npm run bench`: boots the gateway on embedded defaults (every app its own process), measures the send path,
 * inbound ingest and webhook dispatch against ceilings measured in the same run on the same machine, reports
 * peak RSS per process, and prints one markdown table. Exits non-zero only when a correctness count fails
 * (lost or unrecorded events); speed is reported, not asserted.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { connect, headers as natsHeaders } from 'nats';
import { Agent, request } from 'undici';
import { buildEvent } from '@gateway/events';
import { SimControl } from '@gateway/testing';
import { startHelper } from './ceilings';
import { load } from './load';
import { fmt, pct, table, type Row } from './report';
import { bootStack } from './stack';

const N_EVENTS = Number(process.env.BENCH_EVENTS ?? 50_000);
const SEND_SECONDS = Number(process.env.BENCH_SEND_SECONDS ?? 20);
const INGEST_SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 10);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 5);
const APP_SECRET = 'sim-app-secret';
const helpersBundle = join(__dirname, 'helpers-server.js');

async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text) as T;
}

async function main() {
  const rows: Row[] = [];
  const failures: string[] = [];
  const natsBin = process.env.NATS_SERVER_BIN ?? 'nats-server';
  const receiver = await startHelper(helpersBundle, 'receiver');
  const receiverUrl = `http://127.0.0.1:${receiver.port}`;
  const stack = await bootStack(natsBin);
  const admin = { authorization: `Bearer ${stack.env.GATEWAY_ADMIN_TOKEN}`, 'content-type': 'application/json' };
  try {
    // provisioning: a tenant, a simulated phone number and an active client delivering to the receiver
    const { api_key: apiKey, tenant } = await json<{ api_key: string; tenant: { id: string } }>(
      await fetch(`${stack.baseUrl}/admin/tenants`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Bench', email: 'bench@example.test' }) }),
    );
    const auth = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const phone = await new SimControl(stack.simUrl).phoneNumber();
    const client = await json<{ id: string }>(
      await fetch(`${stack.baseUrl}/api/clients/`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          display_name: 'Bench shop',
          business_account_id: phone.waba_id,
          phone_number_id: phone.phone_number_id,
          access_token: phone.access_token,
          webhook_url: `${receiverUrl}/hooks`,
        }),
      }),
    );

    // 1. dispatch: a backlog of N events drained by one dispatcher process
    await stack.procs.get('dispatcher')!.stop();
    const nc = await connect({ servers: stack.natsUrl });
    const js = nc.jetstream();
    const bodies: string[] = [];
    let inFlight: Promise<unknown>[] = [];
    for (let i = 0; i < N_EVENTS; i++) {
      const e = buildEvent({ type: 'test', tenantId: tenant.id, clientId: client.id, externalId: null, payload: { test: true, n: i } });
      bodies.push(e.body);
      const h = natsHeaders();
      for (const [k, v] of Object.entries(e.headers)) h.set(k, v);
      inFlight.push(js.publish(e.subject, e.body, { msgID: e.id, headers: h }));
      if (inFlight.length >= 2000) {
        await Promise.all(inFlight);
        inFlight = [];
      }
    }
    await Promise.all(inFlight);
    await fetch(`${receiverUrl}/stats`, { method: 'DELETE' });
    const dispatchStart = performance.now();
    await stack.startService('dispatcher');
    let stats = { received: 0, distinct: 0, firstAt: 0, lastAt: 0 };
    const deadline = Date.now() + 180_000;
    while (stats.distinct < N_EVENTS && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      stats = await json(await fetch(`${receiverUrl}/stats`));
    }
    const dispatchSeconds = (performance.now() - dispatchStart) / 1000;
    // the drain rate runs from the first delivery to the last; the process start (storage open, consumers
    // created) is reported apart
    const drainSeconds = Math.max((stats.lastAt - stats.firstAt) / 1000, 0.001);
    const dispatchRate = stats.distinct / drainSeconds;
    const startupSeconds = dispatchSeconds - drainSeconds;
    // every delivery recorded as succeeded
    const succeeded = await countDeliveries(stack.baseUrl, auth, client.id, 'succeeded', N_EVENTS, 'test');
    if (stats.distinct !== N_EVENTS) failures.push(`dispatch: ${stats.distinct} distinct event ids received, expected ${N_EVENTS}`);
    if (succeeded !== N_EVENTS) failures.push(`dispatch: ${succeeded} delivery records succeeded, expected ${N_EVENTS}`);

    // dispatch ceiling: undici POSTs of the same bodies to the same receiver, 64 in flight
    await fetch(`${receiverUrl}/stats`, { method: 'DELETE' });
    const agent = new Agent({ connections: 64, pipelining: 1 });
    const ceilStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < bodies.length) {
          const i = next++;
          const r = await request(`${receiverUrl}/hooks`, { method: 'POST', dispatcher: agent, body: bodies[i], headers: { 'content-type': 'application/json', 'x-event-id': `c${i}` } });
          await r.body.dump();
        }
      }),
    );
    const ceilRate = bodies.length / ((performance.now() - ceilStart) / 1000);
    await agent.close();
    rows.push({
      measure: `Dispatch: ${fmt(N_EVENTS)} events, signed + recorded deliveries/s`,
      value: `${fmt(dispatchRate)} (drained in ${fmt(drainSeconds, 1)} s after a ${fmt(startupSeconds, 1)} s process start)`,
      ceiling: `${fmt(ceilRate)} (undici, 64 in flight)`,
      ratio: pct(dispatchRate, ceilRate),
      goal: '≥ 5,000/s; N received, N recorded',
      met: dispatchRate >= 5000 && stats.distinct === N_EVENTS && succeeded === N_EVENTS,
    });

    // 2. send path: send-buttons through edge → messaging → simulator
    const sendBody = JSON.stringify({
      client_id: client.id,
      to: '+15551230000',
      body: { type: 'text', text: 'Pick one' },
      buttons: [{ id: 'yes', title: 'Yes' }, { id: 'no', title: 'No' }],
    });
    const send = await load({ url: `${stack.baseUrl}/api/messaging/send-buttons`, headers: auth, body: sendBody, connections: 50, durationSec: SEND_SECONDS, warmupSec: WARMUP_SECONDS });
    const grpcCeil = await startHelper(helpersBundle, 'grpc');
    const koaCeil = await startHelper(helpersBundle, 'koa-grpc', [`127.0.0.1:${grpcCeil.port}`]);
    const sendCeil = await load({ url: `http://127.0.0.1:${koaCeil.port}/`, headers: { 'content-type': 'application/json' }, body: sendBody, connections: 50, durationSec: SEND_SECONDS, warmupSec: WARMUP_SECONDS });
    await koaCeil.proc.stop();
    await grpcCeil.proc.stop();
    rows.push({
      measure: 'Send path: send-buttons req/s (50 connections)',
      value: `${fmt(send.requestsPerSec)} (${fmt(send.non2xx)} non-2xx)`,
      ceiling: `${fmt(sendCeil.requestsPerSec)} (Koa + 1 unary gRPC)`,
      ratio: pct(send.requestsPerSec, sendCeil.requestsPerSec),
      goal: '≥ 50 % of ceiling',
      met: send.requestsPerSec >= 0.5 * sendCeil.requestsPerSec,
    });
    rows.push({
      measure: 'Send path: p99 latency',
      value: `${fmt(send.p99Ms)} ms`,
      ceiling: `${fmt(sendCeil.p99Ms)} ms`,
      ratio: sendCeil.p99Ms > 0 ? `${fmt(send.p99Ms / sendCeil.p99Ms, 1)} ×` : 'n/a',
      goal: '≤ 3 × ceiling p99',
      met: send.p99Ms <= 3 * Math.max(sendCeil.p99Ms, 1),
    });

    // 3. inbound ingest: signed status-update webhooks, each body distinct (the stream dedupes repeats)
    const jsm = await nc.jetstreamManager();
    const before = (await jsm.streams.info('PROVIDER_INBOUND')).state.messages;
    let seq = 0;
    const statusBody = (n: number) =>
      JSON.stringify({
        object: 'whatsapp_business_account',
        entry: [{ id: phone.waba_id, changes: [{ field: 'messages', value: {
          messaging_product: 'whatsapp',
          metadata: { display_phone_number: '15550001111', phone_number_id: phone.phone_number_id },
          statuses: [{ id: `wamid.bench.${randomUUID()}.${n}`, status: 'delivered', timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: '15551230000',
            pricing: { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' } }],
        } }] }],
      });
    const signedRequest = () => {
      const body = statusBody(seq++);
      return { body, headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}` } };
    };
    const ingest = await load({ url: `${stack.baseUrl}/webhooks/provider`, setupRequest: signedRequest, connections: 50, durationSec: INGEST_SECONDS, warmupSec: 2 });
    const noop = await startHelper(helpersBundle, 'koa-noop');
    const ingestCeil = await load({ url: `http://127.0.0.1:${noop.port}/`, setupRequest: signedRequest, connections: 50, durationSec: INGEST_SECONDS, warmupSec: 2 });
    await noop.proc.stop();
    const after = (await jsm.streams.info('PROVIDER_INBOUND')).state.messages;
    const stored = after - before;
    // every body the edge accepted (warm-up included) must be in the stream: bodies are distinct, so no dedupe.
    // The load tool stops each phase with up to one request per connection in flight: the edge may have stored
    // those without the tool counting their answer, so the stream may hold up to that many more, never fewer.
    const accepted = ingest.ok2xx + (ingest.warmup?.ok2xx ?? 0);
    const cutOff = 50 * 2;
    if (stored < accepted || stored > accepted + cutOff) failures.push(`ingest: ${stored} bodies in the stream, but ${accepted} were accepted (+ at most ${cutOff} cut off in flight)`);
    rows.push({
      measure: 'Inbound ingest: accepted webhooks/s (one edge)',
      value: `${fmt(ingest.requestsPerSec)} (${fmt(ingest.non2xx)} non-2xx; ${fmt(stored)} stored of ${fmt(accepted)} accepted)`,
      ceiling: `${fmt(ingestCeil.requestsPerSec)} (Koa, no work)`,
      ratio: pct(ingest.requestsPerSec, ingestCeil.requestsPerSec),
      goal: '≥ 5,000/s, every accepted body stored',
      met: ingest.requestsPerSec >= 5000 && stored === accepted,
    });
    await nc.close();

    // 4. memory
    for (const [name, p] of stack.procs) {
      const mb = p.peakRssMb;
      rows.push({ measure: `Peak RSS: ${name}`, value: `${fmt(mb)} MB`, ceiling: '', ratio: '', goal: name === 'nats-server' ? '(not ours)' : '≤ 200 MB', met: name === 'nats-server' ? null : mb <= 200 });
    }
  } finally {
    await stack.stop();
    await receiver.proc.stop();
  }

  console.log(`\n## Benchmark — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown cpu'}), Node ${process.version}\n`);
  console.log(table(rows));
  if (failures.length) {
    console.error(`\nCorrectness failures:\n- ${failures.join('\n- ')}`);
    process.exit(1);
  }
}

async function countDeliveries(baseUrl: string, headers: Record<string, string>, clientId: string, status: string, expected: number, eventType: string): Promise<number> {
  // records are written as deliveries finish; wait until the count settles
  let last = -1;
  for (let attempt = 0; attempt < 60; attempt++) {
    let count = 0;
    let cursor: string | null = null;
    do {
      const q: string = `status=${status}&event_type=${eventType}&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: { data: unknown[]; next_cursor: string | null } = await json(await fetch(`${baseUrl}/api/clients/${clientId}/webhook/deliveries?${q}`, { headers }));
      count += page.data.length;
      cursor = page.next_cursor;
    } while (cursor);
    if (count === expected || count === last) return count;
    last = count;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return last;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
