/**
 * `npm run bench`: measures the gateway in its two configurations in one run, every app its own process:
 *   - embedded: PGlite inside every process (`npm start` without DATABASE_URL);
 *   - production: every service on a PostgreSQL server (BENCH_DATABASE_URL, a fresh database per run, dropped after).
 * For each: webhook dispatch (one dispatcher draining a backlog), the send path and inbound ingest, against ceilings
 * measured in the same run on the same machine (dispatch's right after its pipeline; send's and ingest's in slices
 * taken in turn with the pipeline's, BENCH_PAIRS of each: interleave.ts); peak RSS per process. In production also a scaling row (two
 * dispatchers / two edges against one). Prints one markdown table. Exits non-zero only when a correctness count
 * fails (lost or unrecorded events, accepted bodies missing); speed is reported, not asserted.
 *
 * While iterating: BENCH_CONFIGS=production, BENCH_ONLY=dispatch,send,ingest,scaling pick what runs;
 * BENCH_PROFILE=dispatcher,edge,messaging,provider-sim writes CPU profiles under .bench/profiles/<config>.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { connect, headers as natsHeaders, type JetStreamManager } from 'nats';
import { Client } from 'pg';
import { Agent, request } from 'undici';
import { tenantDirectory as td } from '@gateway/contracts';
import { buildEvent } from '@gateway/events';
import { createServiceClient } from '@gateway/rpc';
import { SimControl } from '@gateway/testing';
import { CAMPAIGN_LIMIT, CAMPAIGN_NUMBERS, CAMPAIGN_RECIPIENTS, campaignRun, SINGLE_P90_GOAL_MS, type CampaignResult } from './campaign';
import { startHelper } from './ceilings';
import { cpuSecondsOf, pidsMatching, type Proc } from './processes';
import { cpuPerOp, interleaved, merged, pairMultiples, type Measure, type Slice } from './interleave';
import { load, type LoadOptions, type LoadResult } from './load';
import { fmt, met, pct, table, type Row } from './report';
import { bootStack, ROOT, type BenchStack } from './stack';
import { listsBench, listsReport, type ListsResult } from './lists';
import { acksBench, acksReport, type AckResult } from './acks';
import { FLOOR_STREAMS } from './ingest-floor';

const N_EVENTS = Number(process.env.BENCH_EVENTS ?? 30_000);
const SEND_SECONDS = Number(process.env.BENCH_SEND_SECONDS ?? 15);
const INGEST_SECONDS = Number(process.env.BENCH_INGEST_SECONDS ?? 10);
/** The send and ingest rows run in this many slices of the pipeline and as many of its ceiling, taken in turn. */
const PAIRS = Math.max(1, Number(process.env.BENCH_PAIRS ?? 3));
/**
 * Every row's CPU per operation is counted after a warm-up, the ceilings' alike: what a service does once it has
 * run a while. On a stack just started, V8 compiles the hot paths for many seconds (perf on 2026-11-30: TurboFan
 * was 17-24 % of each service's CPU in the first 13 s of the send row, 2 % after 45 s), while a ceiling's few
 * functions compile at once: a short cold run charged that to the gateway alone.
 */
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 15);
/** Events the dispatcher (and the dispatch ceiling) deliver before the counted backlog, as a warm-up. */
const DISPATCH_WARMUP_EVENTS = Number(process.env.BENCH_DISPATCH_WARMUP_EVENTS ?? 10_000);
const CONNECTIONS = 50;
const SEND_RECIPIENTS = Math.max(1, Number(process.env.BENCH_SEND_RECIPIENTS ?? 10_000));
const APP_SECRET = 'sim-app-secret';
const helpersBundle = join(__dirname, 'helpers-server.js');
const CONFIGS = (process.env.BENCH_CONFIGS ?? 'embedded,production').split(',').filter(Boolean) as ConfigName[];
const ONLY = new Set((process.env.BENCH_ONLY ?? 'dispatch,send,floor,ingest,scaling,tracing,campaign,lists').split(',').filter(Boolean));
const RSS_GOAL_MB = 200;
const CONCURRENCY_NOTE = '32 handlers at once, each only acknowledging';

type ConfigName = 'embedded' | 'production';
const TITLES: Record<ConfigName, string> = { embedded: 'Embedded (PGlite in each process)', production: 'Production (PostgreSQL server)' };

interface DispatchResult {
  rate: number;
  drainSeconds: number;
  startupSeconds: number;
  distinct: number;
  succeeded: number;
}
interface IngestResult {
  rate: number;
  non2xx: number;
  stored: number;
  accepted: number;
  /** Accepted after the warm-up: the operations its CPU is divided by. */
  counted: number;
  /** Load runs it took (warm-up and slices): each may end with one request per connection unanswered. */
  runs: number;
}
/**
 * Each configuration's ceilings are measured beside its own pipeline, with its stack idle: the machine is shared,
 * and a ceiling taken minutes apart from its measure would compare two different machines (dispatch's right after
 * its backlog; send's and ingest's in slices taken in turn with the pipeline's).
 */
interface ConfigResult {
  ceilings: Ceilings;
  /** CPU seconds by process per pipeline (and per ceiling), for "where the time goes". */
  cpu: Map<string, CpuUse>;
  dispatch?: DispatchResult;
  send?: LoadResult;
  ingest?: IngestResult;
  scaling?: { dispatch2?: DispatchResult; ingest2?: IngestResult };
  /** The send path again with OpenTelemetry on (production only, once the tracing switch exists). */
  sendTraced?: LoadResult;
  traceExports?: { exports: number; bytes: number };
  rss: Map<string, number>;
  campaign?: CampaignResult;
}
interface Ceilings {
  dispatch?: number;
  send?: LoadResult;
  ingest?: number;
}

async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text) as T;
}

const log = (msg: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** CPU seconds used so far by each process of the run (PostgreSQL: the backends serving the bench's database). */
type CpuSnapshot = Map<string, number>;
const PG = 'postgres (backends of this database)';
const LOADER = 'bench (load tool)';
function cpuSnapshot(procs: Iterable<[string, Proc]>, dbName?: string): CpuSnapshot {
  const m: CpuSnapshot = new Map();
  for (const [name, p] of procs) m.set(name, p.cpuSeconds());
  const u = process.cpuUsage();
  m.set(LOADER, (u.user + u.system) / 1e6);
  if (dbName) for (const pid of pidsMatching(` ${dbName} `)) m.set(`pg:${pid}`, cpuSecondsOf(pid) ?? 0);
  return m;
}
/** CPU seconds each process used between two snapshots, PostgreSQL backends summed. */
function cpuUsed(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const used = new Map<string, number>();
  for (const [k, v] of after) {
    const name = k.startsWith('pg:') ? PG : k;
    const d = v - (before.get(k) ?? 0);
    if (d > 0) used.set(name, (used.get(name) ?? 0) + d);
  }
  return used;
}
/** Where the CPU went in one pipeline: seconds by process, and the operations done meanwhile. */
interface CpuUse {
  ops: number;
  byProcess: Map<string, number>;
  /** Measured in slices taken in turn with its ceiling's: each pair's multiple of the ceiling's CPU per operation. */
  pairs?: number[];
}

/**
 * `load`, its CPU counted after the warm-up: the counted run's requests, and the CPU `snapshot`'s processes took
 * meanwhile (`settle`: what the run leaves to finish before the last snapshot, such as a batch of spans).
 */
async function countedLoad(opts: LoadOptions, snapshot: () => CpuSnapshot, settle?: () => Promise<void>): Promise<{ result: LoadResult; cpu: CpuUse }> {
  let cpu0: CpuSnapshot | undefined;
  const result = await load({ ...opts, afterWarmup: () => void (cpu0 = snapshot()) });
  await settle?.();
  return { result, cpu: { ops: result.total, byProcess: cpuUsed(cpu0!, snapshot()) } };
}

// request bodies, shared by the gateway runs and their ceilings
const sendBodyFor = (clientId: string, to = '+15551230000') =>
  JSON.stringify({
    client_id: clientId,
    to,
    body: { type: 'text', text: 'Pick one' },
    buttons: [
      { id: 'yes', title: 'Yes' },
      { id: 'no', title: 'No' },
    ],
  });

/**
 * The send row's requests: each to the next of `BENCH_SEND_RECIPIENTS` users in turn (10,000 by default). The
 * provider allows one business number about one message per 6 s to one user (131056, the pair rate), so a load of
 * hundreds per second to one user is one it refuses; spread over 10,000 users it stays under that up to 1,600/s.
 * `BENCH_SEND_RECIPIENTS=1` is the earlier load (every send to one user: every send's contact row the same).
 */
function sendRequestsFor(clientId: string): NonNullable<LoadOptions['setupRequest']> {
  const bodies = Array.from({ length: SEND_RECIPIENTS }, (_, i) => sendBodyFor(clientId, `+1555${String(2_000_000 + i)}`));
  let next = 0;
  return () => ({ body: bodies[next++ % bodies.length] });
}

function signedStatuses(wabaId: string, phoneNumberId: string) {
  let seq = 0;
  return () => {
    // each body distinct: the stream dedupes repeats
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: wabaId,
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId },
                statuses: [
                  {
                    id: `wamid.bench.${randomUUID()}.${seq++}`,
                    status: 'delivered',
                    timestamp: String(Math.floor(Date.now() / 1000)),
                    recipient_id: '15551230000',
                    pricing: { billable: true, pricing_model: 'PMP', category: 'utility', type: 'regular' },
                  },
                ],
              },
            },
          ],
        },
      ],
    });
    return {
      body,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', APP_SECRET).update(body).digest('hex')}` },
    };
  };
}

/** `test` events exactly as the dispatcher's "send test" builds them (the documented payload): each has its own event id. */
function eventBodies(tenantId: string, clientId: string, n: number) {
  return Array.from({ length: n }, () =>
    buildEvent({ type: 'test', tenantId, clientId, externalId: null, payload: { test: true, requested_at: new Date().toISOString() } }),
  );
}

/** Dispatch ceiling: undici POSTs of event envelopes to the same receiver, 64 in flight. */
async function dispatchCeiling(receiver: Proc, receiverUrl: string, tenantId: string, clientId: string): Promise<{ rate: number; cpu: CpuUse }> {
  await fetch(`${receiverUrl}/stats`, { method: 'DELETE' });
  const agent = new Agent({ connections: 64, pipelining: 1 });
  const procs = (): [string, Proc][] => [['receiver', receiver]];
  let sent = 0;
  const post = async (bodies: string[]) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < bodies.length) {
          const i = next++;
          const r = await request(`${receiverUrl}/hooks`, {
            method: 'POST',
            dispatcher: agent,
            body: bodies[i],
            headers: { 'content-type': 'application/json', 'x-event-id': `c${sent + i}` },
          });
          await r.body.dump();
        }
      }),
    );
    sent += bodies.length;
  };
  // the same warm-up as the dispatcher's, then the counted backlog
  await post(eventBodies(tenantId, clientId, DISPATCH_WARMUP_EVENTS).map((e) => e.body));
  const bodies = eventBodies(tenantId, clientId, N_EVENTS).map((e) => e.body);
  const cpu0 = cpuSnapshot(procs());
  const t0 = performance.now();
  await post(bodies);
  const rate = bodies.length / ((performance.now() - t0) / 1000);
  const cpu = { ops: bodies.length, byProcess: cpuUsed(cpu0, cpuSnapshot(procs())) };
  await agent.close();
  return { rate, cpu };
}

/**
 * One slice of a load measured in turn with its counterpart (`interleaved`): no warm-up (the side was warmed before
 * the slices), the CPU of `snapshot`'s processes counted over the load and over `settle` (what it leaves to drain).
 */
async function sliceOf(
  opts: LoadOptions,
  seconds: number,
  snapshot: () => CpuSnapshot,
  opsOf: (l: LoadResult) => number = (l) => l.total,
  settle?: () => Promise<void>,
): Promise<Slice> {
  const before = snapshot();
  const l = await load({ ...opts, durationSec: seconds, warmupSec: 0 });
  await settle?.();
  return { load: l, ops: opsOf(l), seconds, cpu: cpuUsed(before, snapshot()) };
}

/** A slice's seconds when a row's counted time is split into PAIRS slices of each side. */
const sliceSeconds = (total: number) => Math.max(2, Math.round(total / PAIRS));

/** `opts` for WARMUP_SECONDS, its numbers kept only for the correctness counts. */
const warmUp = async (opts: LoadOptions) => (WARMUP_SECONDS > 0 ? load({ ...opts, durationSec: WARMUP_SECONDS, warmupSec: 0 }) : undefined);

/** The send row's bodies and load against a helper's Koa server on `port`, warmed up, as a slice to take in turn. */
async function warmedSendSlice(port: number, clientId: string, procs: () => [string, Proc][]): Promise<Measure> {
  const opts: LoadOptions = {
    url: `http://127.0.0.1:${port}/`,
    headers: { 'content-type': 'application/json' },
    setupRequest: sendRequestsFor(clientId),
    connections: CONNECTIONS,
    durationSec: SEND_SECONDS,
  };
  await warmUp(opts);
  return () => sliceOf(opts, sliceSeconds(SEND_SECONDS), () => cpuSnapshot(procs()));
}

/** Helpers started one after the other and stopped together, the last first (also those started before one failed). */
function helperGroup() {
  const started: Array<{ port: number; proc: Proc }> = [];
  return {
    async start(mode: string, extra: string[] = []) {
      const h = await startHelper(helpersBundle, mode, extra);
      started.push(h);
      return h;
    },
    async stop() {
      for (const h of started.reverse()) await h.proc.stop();
    },
  };
}

/**
 * Send-path ceiling: a minimal Koa server making one unary gRPC call per request, the same body and load. Started
 * and warmed, then handed to `measure` as a slice to take in turn with the pipeline's.
 */
async function withSendCeiling<T>(clientId: string, measure: (slice: Measure) => Promise<T>): Promise<T> {
  const helpers = helperGroup();
  try {
    const grpc = await helpers.start('grpc');
    const koa = await helpers.start('koa-grpc', [`127.0.0.1:${grpc.port}`]);
    const procs = (): [string, Proc][] => [
      ['ceiling: Koa', koa.proc],
      ['ceiling: gRPC server', grpc.proc],
    ];
    return await measure(await warmedSendSlice(koa.port, clientId, procs));
  } finally {
    await helpers.stop();
  }
}

/**
 * The send path's floor (send-floor.ts): the processes and calls a send crosses (Koa, the admission call, the
 * `Send` call, the provider simulator) with none of the gateway's work, on a number of its own and the same
 * bodies and load. Started and warmed, then handed to `measure` as a slice to take in turn with the ceiling's.
 */
async function withSendFloor<T>(stack: BenchStack, clientId: string, measure: (slice: Measure) => Promise<T>): Promise<T> {
  const simUrl = stack.simUrl;
  const phone = await new SimControl(simUrl).phoneNumber();
  const helpers = helperGroup();
  try {
    const business = await helpers.start('floor-business');
    const messaging = await helpers.start('floor-messaging', [simUrl, phone.access_token, phone.phone_number_id]);
    const koa = await helpers.start('floor-edge', [`127.0.0.1:${business.port}`, `127.0.0.1:${messaging.port}`]);
    const procs = (): [string, Proc][] => [
      ['floor: Koa', koa.proc],
      ['floor: business', business.proc],
      ['floor: messaging', messaging.proc],
      ...[...stack.procs].filter(([name]) => name === 'provider-sim'),
    ];
    return await measure(await warmedSendSlice(koa.port, clientId, procs));
  } finally {
    await helpers.stop();
  }
}

/** Ingest ceiling: a minimal Koa server reading the body and answering 200, the same signed bodies and load. */
async function withIngestCeiling<T>(nextRequest: ReturnType<typeof signedStatuses>, measure: (slice: Measure) => Promise<T>): Promise<T> {
  const noop = await startHelper(helpersBundle, 'koa-noop');
  try {
    const procs = (): [string, Proc][] => [['ceiling: Koa', noop.proc]];
    const opts: LoadOptions = { url: `http://127.0.0.1:${noop.port}/`, setupRequest: nextRequest, connections: CONNECTIONS, durationSec: INGEST_SECONDS };
    await warmUp(opts);
    return await measure(() => sliceOf(opts, sliceSeconds(INGEST_SECONDS), () => cpuSnapshot(procs())));
  } finally {
    await noop.proc.stop();
  }
}

/**
 * The ingest path's floor (ingest-floor.ts): the processes and hops a webhook crosses (Koa, a stream, a consumer
 * publishing an event, a consumer POSTing it to the receiver) with none of the gateway's work, the same signed
 * bodies and load. Started, warmed and drained, then handed to `measure` as a slice to take in turn with the
 * ceiling's; each slice counted until what its load left is delivered.
 */
async function withIngestFloor<T>(
  stack: BenchStack,
  receiver: { proc: Proc; url: string },
  jsm: JetStreamManager,
  nextRequest: ReturnType<typeof signedStatuses>,
  measure: (slice: Measure) => Promise<T>,
): Promise<T> {
  const nats = stack.env.NATS_URL;
  const streams = [FLOOR_STREAMS.inbound.name, FLOOR_STREAMS.events.name];
  const helpers = helperGroup();
  try {
    const dispatcher = await helpers.start('floor-dispatcher', [nats, `${receiver.url}/floor`]);
    const router = await helpers.start('floor-router', [nats]);
    const inbound = await helpers.start('floor-inbound', [nats]);
    const procs = (): [string, Proc][] => [
      ['floor: Koa', inbound.proc],
      ['floor: router', router.proc],
      ['floor: dispatcher', dispatcher.proc],
      ...[...stack.procs].filter(([name]) => name === 'nats-server'),
      ['receiver', receiver.proc],
    ];
    const opts: LoadOptions = { url: `http://127.0.0.1:${inbound.port}/`, setupRequest: nextRequest, connections: CONNECTIONS, durationSec: INGEST_SECONDS };
    const settle = () => quiesce(jsm, streams);
    await warmUp(opts);
    await settle();
    return await measure(() =>
      sliceOf(
        opts,
        sliceSeconds(INGEST_SECONDS),
        () => cpuSnapshot(procs()),
        (l) => l.ok2xx,
        settle,
      ),
    );
  } finally {
    await helpers.stop();
    for (const name of streams) await jsm.streams.delete(name).catch(() => false);
  }
}

/** A fresh database on the PostgreSQL server for one run; dropped after. */
async function freshDatabase(adminUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `gw_bench_${randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new Client({ connectionString: adminUrl });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

async function runConfig(config: ConfigName, natsBin: string, receiver: Proc, receiverUrl: string, failures: string[]): Promise<ConfigResult> {
  let db: { url: string; drop(): Promise<void> } | undefined;
  if (config === 'production') {
    const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
    if (!adminUrl) throw new Error('the production configuration needs BENCH_DATABASE_URL (scripts/bench.sh sets it)');
    db = await freshDatabase(adminUrl);
  }
  log(`${config}: starting the stack`);
  const stack = await bootStack(natsBin, { label: config, databaseUrl: db?.url });
  const fail = (msg: string) => failures.push(`${config}: ${msg}`);
  const result: ConfigResult = { rss: new Map(), ceilings: {}, cpu: new Map() };
  const dbName = db ? new URL(db.url).pathname.slice(1) : undefined;
  const procsNow = (): [string, Proc][] => [...stack.procs, ['receiver', receiver]];
  const nc = await connect({ servers: stack.natsUrl });
  try {
    const admin = { authorization: `Bearer ${stack.env.GATEWAY_ADMIN_TOKEN}`, 'content-type': 'application/json' };
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
    // the send row's load, and the same again with tracing on (each its own run through the users)
    const sendLoad = (): LoadOptions => ({
      url: `${stack.baseUrl}/api/messaging/send-buttons`,
      headers: auth,
      setupRequest: sendRequestsFor(client.id),
      connections: CONNECTIONS,
      durationSec: SEND_SECONDS,
      warmupSec: WARMUP_SECONDS,
    });
    const countSucceeded = (expected: number) => countDeliveries(stack.baseUrl, auth, client.id, expected, db?.url);
    let recorded = 0;

    // 1. dispatch: a backlog of N events drained by one dispatcher process
    if (ONLY.has('dispatch')) {
      result.dispatch = await dispatchRun(
        stack,
        nc,
        receiverUrl,
        tenant.id,
        client.id,
        ['dispatcher'],
        () => countSucceeded((recorded += DISPATCH_WARMUP_EVENTS + N_EVENTS)),
        recorded,
        {
          start: () => cpuSnapshot(procsNow(), dbName),
          stop: (before, ops) => result.cpu.set('dispatch', { ops, byProcess: cpuUsed(before, cpuSnapshot(procsNow(), dbName)) }),
        },
      );
      checkDispatch(result.dispatch, fail, 'dispatch');
      const dc = await dispatchCeiling(receiver, receiverUrl, tenant.id, client.id);
      result.ceilings.dispatch = dc.rate;
      result.cpu.set('dispatch ceiling', dc.cpu);
      log(`${config}: dispatch ${fmt(result.dispatch.rate)}/s, ceiling ${fmt(result.ceilings.dispatch)}/s`);
    }

    // 2. send path: send-buttons through edge → messaging → simulator, in slices taken in turn with its ceiling's
    if (ONLY.has('send')) {
      // one cycle through the users for the warm-up and every slice: a slice starting again at the first user would
      // send to users the warm-up sent to seconds before, which the provider's pair rate refuses
      const opts = sendLoad();
      await warmUp(opts);
      const slices = await withSendCeiling(client.id, (ceiling) =>
        interleaved(PAIRS, () => sliceOf(opts, sliceSeconds(SEND_SECONDS), () => cpuSnapshot(procsNow(), dbName)), ceiling),
      );
      const send = merged(slices.pipeline);
      const ceiling = merged(slices.ceiling);
      result.send = send.load;
      result.cpu.set('send', { ops: send.ops, byProcess: send.cpu, pairs: pairMultiples(slices.pipeline, slices.ceiling) });
      result.ceilings.send = ceiling.load;
      result.cpu.set('send ceiling', { ops: ceiling.ops, byProcess: ceiling.cpu });
      log(
        `${config}: send ${fmt(result.send.requestsPerSec)}/s p99 ${result.send.p99Ms} ms, ceiling ${fmt(result.ceilings.send.requestsPerSec)}/s p99 ${result.ceilings.send.p99Ms} ms`,
      );
    }

    // 2a. the send path's floor, in slices taken in turn with the same ceiling's (production only: it has no database)
    if (ONLY.has('floor') && config === 'production') {
      const slices = await withSendCeiling(client.id, (ceiling) => withSendFloor(stack, client.id, (floor) => interleaved(PAIRS, floor, ceiling)));
      const floor = merged(slices.pipeline);
      const ceiling = merged(slices.ceiling);
      result.cpu.set('send floor', { ops: floor.ops, byProcess: floor.cpu, pairs: pairMultiples(slices.pipeline, slices.ceiling) });
      result.cpu.set('send floor ceiling', { ops: ceiling.ops, byProcess: ceiling.cpu });
      log(
        `${config}: send floor ${fmt(floor.load.requestsPerSec)}/s p99 ${floor.load.p99Ms} ms (${fmt(floor.load.non2xx)} non-2xx), ceiling ${fmt(ceiling.load.requestsPerSec)}/s p99 ${ceiling.load.p99Ms} ms`,
      );
      // a floor that failed requests measured something else
      if (floor.load.non2xx || floor.load.errors) fail(`the send floor answered ${floor.load.non2xx} non-2xx and ${floor.load.errors} errors`);
    }

    // 2b. a campaign per number, paced by the messaging service to the simulator's per-number limit
    if (ONLY.has('campaign')) {
      const dir = createServiceClient(td.TenantDirectoryService, stack.env.TENANT_DIRECTORY_ADDR);
      try {
        result.campaign = await campaignRun(
          stack.baseUrl,
          stack.simUrl,
          auth,
          (m) => log(`${config}: ${m}`),
          {
            start: () => cpuSnapshot(procsNow(), dbName),
            stop: (before, ops) =>
              result.cpu.set('campaign', { ops, byProcess: cpuUsed(before as ReturnType<typeof cpuSnapshot>, cpuSnapshot(procsNow(), dbName)) }),
          },
          // as the provider's webhooks report it (tools/e2e/src/campaigns/testing.ts does the same)
          async (clientId, perSecond) => {
            await dir.applyProviderAccountUpdate({ tenantId: tenant.id, clientId, throughput: perSecond });
          },
          stack.metricsUrl('messaging'),
        );
      } finally {
        dir.close();
      }
      const c = result.campaign;
      if (c.duplicates) fail(`campaign: ${c.duplicates} recipients sent twice`);
      if (c.lost) fail(`campaign: ${c.lost} recipients lost`);
      if (c.singles.failed) fail(`campaign: ${c.singles.failed} of the tenant's ${c.singles.sent} own sends beside it not answered 2xx`);
    }

    // 3. inbound ingest: signed status-update webhooks, each body distinct
    const jsm = await nc.jetstreamManager();
    const nextRequest = signedStatuses(phone.waba_id, phone.phone_number_id);
    if (ONLY.has('ingest')) {
      const opts: LoadOptions = { url: `${stack.baseUrl}/webhooks/provider`, setupRequest: nextRequest, connections: CONNECTIONS, durationSec: INGEST_SECONDS };
      const storedBefore = (await jsm.streams.info('PROVIDER_INBOUND')).state.messages;
      const warm = await warmUp(opts);
      // the warm-up's backlog is drained before counting starts; the CPU of a webhook is all of it (routed,
      // recorded, its event delivered): each slice drains what its load left before its last snapshot, and before
      // the ceiling's slice, which would otherwise share the cores with it
      await quiesce(jsm);
      const slices = await withIngestCeiling(nextRequest, (ceiling) =>
        interleaved(
          PAIRS,
          () =>
            sliceOf(
              opts,
              sliceSeconds(INGEST_SECONDS),
              () => cpuSnapshot(procsNow(), dbName),
              (l) => l.ok2xx,
              () => quiesce(jsm),
            ),
          ceiling,
        ),
      );
      const ingest = merged(slices.pipeline);
      const ceiling = merged(slices.ceiling);
      result.ingest = {
        rate: ingest.load.requestsPerSec,
        non2xx: ingest.load.non2xx,
        stored: (await jsm.streams.info('PROVIDER_INBOUND')).state.messages - storedBefore,
        accepted: (warm?.ok2xx ?? 0) + ingest.load.ok2xx,
        counted: ingest.ops,
        runs: (warm ? 1 : 0) + slices.pipeline.length,
      };
      checkIngest(result.ingest, fail, 'ingest');
      result.cpu.set('ingest', { ops: ingest.ops, byProcess: ingest.cpu, pairs: pairMultiples(slices.pipeline, slices.ceiling) });
      result.ceilings.ingest = ceiling.load.requestsPerSec;
      result.cpu.set('ingest ceiling', { ops: ceiling.ops, byProcess: ceiling.cpu });
      log(`${config}: ingest ${fmt(result.ingest.rate)}/s, ceiling ${fmt(result.ceilings.ingest)}/s`);
    }

    // 3a. the ingest path's floor, in slices taken in turn with the same ceiling's (production only, as the send's)
    if (ONLY.has('floor') && config === 'production') {
      const slices = await withIngestCeiling(nextRequest, (ceiling) =>
        withIngestFloor(stack, { proc: receiver, url: receiverUrl }, jsm, nextRequest, (floor) => interleaved(PAIRS, floor, ceiling)),
      );
      const floor = merged(slices.pipeline);
      const ceiling = merged(slices.ceiling);
      result.cpu.set('ingest floor', { ops: floor.ops, byProcess: floor.cpu, pairs: pairMultiples(slices.pipeline, slices.ceiling) });
      result.cpu.set('ingest floor ceiling', { ops: ceiling.ops, byProcess: ceiling.cpu });
      log(`${config}: ingest floor ${fmt(floor.load.requestsPerSec)}/s (${fmt(floor.load.non2xx)} non-2xx), ceiling ${fmt(ceiling.load.requestsPerSec)}/s`);
      if (floor.load.non2xx || floor.load.errors) fail(`the ingest floor answered ${floor.load.non2xx} non-2xx and ${floor.load.errors} errors`);
    }

    // 4. scaling (production: replicas share the database): the same dispatch and ingest with two processes
    if (ONLY.has('scaling') && config === 'production') {
      result.scaling = {};
      const edge2 = await stack.startReplica('edge');
      result.scaling.ingest2 = await ingestRun(jsm, [stack.baseUrl, edge2.url], nextRequest);
      checkIngest(result.scaling.ingest2, fail, 'ingest, two edges');
      log(`${config}: ingest with two edges ${fmt(result.scaling.ingest2.rate)}/s`);
      await edge2.proc.stop();
      await quiesce(jsm);
      result.scaling.dispatch2 = await dispatchRun(
        stack,
        nc,
        receiverUrl,
        tenant.id,
        client.id,
        ['dispatcher', 'dispatcher-2'],
        () => countSucceeded((recorded += DISPATCH_WARMUP_EVENTS + N_EVENTS)),
        recorded,
      );
      checkDispatch(result.scaling.dispatch2, fail, 'dispatch, two dispatchers');
      log(`${config}: dispatch with two dispatchers ${fmt(result.scaling.dispatch2.rate)}/s`);
      await stack.procs.get('dispatcher-2')?.stop();
    }

    // 5. the send path again with tracing on (OpenTelemetry, OTLP/HTTP export to a local sink), after the RSS
    // figures are taken: the services of the send path restarted with OTEL_EXPORTER_OTLP_ENDPOINT set
    if (ONLY.has('tracing') && config === 'production' && existsSync(join(ROOT, 'libs', 'telemetry'))) {
      result.rss = stack.peakRss();
      await quiesce(jsm);
      const sink = await startHelper(helpersBundle, 'otlp-sink');
      try {
        const otel = { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sink.port}`, OTEL_BSP_SCHEDULE_DELAY: '1000' };
        for (const name of ['edge', 'messaging', 'tenant-directory']) {
          await stack.procs.get(name)?.stop();
          await stack.startService(name, otel);
        }
        const traced = await countedLoad(
          sendLoad(),
          () => cpuSnapshot([...procsNow(), ['otlp-sink', sink.proc]], dbName),
          () => new Promise((r) => setTimeout(r, 1500)), // the last batch of spans
        );
        result.sendTraced = traced.result;
        result.cpu.set('send, tracing on', traced.cpu);
        result.traceExports = await json(await fetch(`http://127.0.0.1:${sink.port}/stats`));
        log(
          `${config}: send with tracing ${fmt(result.sendTraced.requestsPerSec)}/s p99 ${result.sendTraced.p99Ms} ms; ${result.traceExports!.exports} OTLP exports`,
        );
      } finally {
        await sink.proc.stop();
      }
    }
  } finally {
    await nc.close();
    if (!result.rss.size) result.rss = stack.peakRss();
    await stack.stop();
    await db?.drop();
  }
  return result;
}

function checkDispatch(d: DispatchResult, fail: (m: string) => void, what: string) {
  if (d.distinct !== N_EVENTS) fail(`${what}: ${d.distinct} distinct event ids received, expected ${N_EVENTS}`);
  if (d.succeeded !== N_EVENTS) fail(`${what}: ${d.succeeded} delivery records succeeded, expected ${N_EVENTS}`);
}

function checkIngest(r: IngestResult, fail: (m: string) => void, what: string) {
  // every body the edge accepted (warm-up included) must be in the stream: bodies are distinct, so no dedupe.
  // The load tool stops each run with up to one request per connection in flight (CONNECTIONS over all edges):
  // the edge may have stored those without the tool counting their answer, so the stream may hold up to that many
  // more a run, never fewer.
  const cutOff = CONNECTIONS * r.runs;
  if (r.stored < r.accepted || r.stored > r.accepted + cutOff)
    fail(`${what}: ${r.stored} bodies in the stream, but ${r.accepted} were accepted (+ at most ${cutOff} cut off in flight)`);
}

/**
 * Publishes N events with the dispatcher(s) stopped, then starts them and times the drain from the first delivery
 * to the last (the process start, storage open and consumers created, is reported apart).
 */
async function dispatchRun(
  stack: BenchStack,
  nc: Awaited<ReturnType<typeof connect>>,
  receiverUrl: string,
  tenantId: string,
  clientId: string,
  processes: string[],
  countSucceeded: () => Promise<number>,
  recordedBefore: number,
  meter?: { start(): CpuSnapshot; stop(before: CpuSnapshot, ops: number): void },
): Promise<DispatchResult> {
  for (const p of processes) await stack.procs.get(p)?.stop();
  const js = nc.jetstream();
  let inFlight: Promise<unknown>[] = [];
  // the warm-up's events first: the counted backlog is drained by a dispatcher that has run a while
  const all = DISPATCH_WARMUP_EVENTS + N_EVENTS;
  for (const e of eventBodies(tenantId, clientId, all)) {
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
  const t0 = performance.now();
  await Promise.all(processes.map((p) => (p.endsWith('-2') ? stack.startReplica(p.slice(0, -2)) : stack.startService(p))));
  let stats = { received: 0, distinct: 0, firstAt: 0, lastAt: 0 };
  const deadline = Date.now() + 180_000;
  const until = async (distinct: number) => {
    while (stats.distinct < distinct && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      stats = await json(await fetch(`${receiverUrl}/stats`));
    }
  };
  await until(DISPATCH_WARMUP_EVENTS);
  // counted from here: the deliveries past this point and the CPU they took (the poll's 100 ms of slack is in both)
  const cpu0 = meter?.start();
  const from = { distinct: stats.distinct, at: Date.now() };
  await until(all);
  const total = (performance.now() - t0) / 1000;
  const counted = stats.distinct - from.distinct;
  if (cpu0) meter!.stop(cpu0, counted);
  const drainSeconds = Math.max((stats.lastAt - from.at) / 1000, 0.001);
  const succeeded = (await countSucceeded()) - recordedBefore - DISPATCH_WARMUP_EVENTS;
  return {
    rate: counted / drainSeconds,
    drainSeconds,
    startupSeconds: total - Math.max((stats.lastAt - stats.firstAt) / 1000, 0.001),
    distinct: stats.distinct - DISPATCH_WARMUP_EVENTS,
    succeeded,
  };
}

/**
 * Waits until the pipeline behind a phase is idle: every durable consumer of the inbound, event and retry streams
 * has nothing pending nor in progress. Ingest leaves a backlog (each stored webhook is routed, recorded and its
 * event delivered after the 200); the next phase must not share the cores with it.
 */
async function quiesce(jsm: JetStreamManager, streams = ['PROVIDER_INBOUND', 'EVENTS', 'WEBHOOK_RETRIES'], timeoutMs = 180_000): Promise<void> {
  const deadlineAt = Date.now() + timeoutMs;
  for (;;) {
    let busy = 0;
    for (const stream of streams) {
      for await (const c of jsm.consumers.list(stream)) busy += c.num_pending + c.num_ack_pending;
    }
    if (busy === 0) return;
    if (Date.now() > deadlineAt) {
      log(`the pipeline still has ${busy} messages pending after ${timeoutMs / 1000} s; going on`);
      return;
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Signed webhooks for INGEST_SECONDS spread over the given edges (CONNECTIONS in all); counts what the stream gained. */
async function ingestRun(
  jsm: JetStreamManager,
  edges: string[],
  nextRequest: ReturnType<typeof signedStatuses>,
  afterWarmup?: () => Promise<void>,
): Promise<IngestResult> {
  const before = (await jsm.streams.info('PROVIDER_INBOUND')).state.messages;
  // with several edges, their loads' warm-ups end apart: the hook is for one edge's run
  const runs = await Promise.all(
    edges.map((base) =>
      load({
        url: `${base}/webhooks/provider`,
        setupRequest: nextRequest,
        connections: CONNECTIONS / edges.length,
        durationSec: INGEST_SECONDS,
        warmupSec: WARMUP_SECONDS,
        afterWarmup: edges.length === 1 ? afterWarmup : undefined,
      }),
    ),
  );
  const after = (await jsm.streams.info('PROVIDER_INBOUND')).state.messages;
  return {
    rate: runs.reduce((n, r) => n + r.requestsPerSec, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    stored: after - before,
    accepted: runs.reduce((n, r) => n + r.ok2xx + (r.warmup?.ok2xx ?? 0), 0),
    counted: runs.reduce((n, r) => n + r.ok2xx, 0),
    runs: WARMUP_SECONDS > 0 ? 2 : 1,
  };
}

/** Delivery records `succeeded` of the bench's test events: in the database when there is a server, else through the API. */
async function countDeliveries(baseUrl: string, headers: Record<string, string>, clientId: string, expected: number, databaseUrl?: string): Promise<number> {
  const countOnce = async (): Promise<number> => {
    if (databaseUrl) {
      const c = new Client({ connectionString: databaseUrl });
      await c.connect();
      try {
        const r = await c.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM dispatcher.deliveries WHERE client_id = $1 AND status = 'succeeded' AND event_type = 'test'`,
          [clientId],
        );
        return r.rows[0].n;
      } finally {
        await c.end();
      }
    }
    let count = 0;
    let cursor: string | null = null;
    do {
      const q: string = `status=succeeded&event_type=test&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const page: { data: unknown[]; next_cursor: string | null } = await json(
        await fetch(`${baseUrl}/api/clients/${clientId}/webhook/deliveries?${q}`, { headers }),
      );
      count += page.data.length;
      cursor = page.next_cursor;
    } while (cursor);
    return count;
  };
  // records are written as deliveries finish; wait until the count settles
  let last = -1;
  for (let attempt = 0; attempt < 60; attempt++) {
    const count = await countOnce();
    if (count === expected || count === last) return count;
    last = count;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return last;
}

function report(results: Partial<Record<ConfigName, ConfigResult>>): string {
  const configs = CONFIGS.filter((c) => results[c]);
  const columns = ['Measure', ...configs.map((c) => TITLES[c]), 'Goal (production)', 'Met'];
  const rows: Row[] = [];
  const prod = results.production;
  const cells = (f: (r: ConfigResult) => string) => configs.map((c) => f(results[c]!));
  const goal = (ok: boolean | undefined) => met(ok === undefined ? null : ok);
  const ratio = (a: number, b: number | undefined) => (b === undefined ? 'n/a' : pct(a, b));
  if (ONLY.has('dispatch')) {
    rows.push([
      `Dispatch: ${fmt(N_EVENTS)} events, signed + recorded deliveries/s (one dispatcher)`,
      ...cells((r) =>
        r.dispatch
          ? `**${fmt(r.dispatch.rate)}** = **${ratio(r.dispatch.rate, r.ceilings.dispatch)}** of ${fmt(r.ceilings.dispatch ?? 0)} (undici, 64 in flight); ${fmt(r.dispatch.distinct)} received, ${fmt(r.dispatch.succeeded)} recorded; drained in ${fmt(r.dispatch.drainSeconds, 1)} s after a ${fmt(r.dispatch.startupSeconds, 1)} s start and ${fmt(DISPATCH_WARMUP_EVENTS)} warm-up events`
          : '',
      ),
      '≥ 50 % of ceiling; N received, N recorded',
      goal(
        prod?.dispatch &&
          prod.dispatch.rate >= 0.5 * (prod.ceilings.dispatch ?? Infinity) &&
          prod.dispatch.distinct === N_EVENTS &&
          prod.dispatch.succeeded === N_EVENTS,
      ),
    ]);
  }
  if (ONLY.has('send')) {
    rows.push([
      `Send path: send-buttons req/s (${CONNECTIONS} connections)`,
      ...cells((r) =>
        r.send
          ? `**${fmt(r.send.requestsPerSec)}** = **${ratio(r.send.requestsPerSec, r.ceilings.send?.requestsPerSec)}** of ${fmt(r.ceilings.send?.requestsPerSec ?? 0)} (Koa + 1 unary gRPC); ${fmt(r.send.non2xx)} non-2xx`
          : '',
      ),
      '≥ 50 % of ceiling',
      goal(prod?.send && prod.send.requestsPerSec >= 0.5 * (prod.ceilings.send?.requestsPerSec ?? Infinity)),
    ]);
    const p99 = (r: ConfigResult) => Math.max(r.ceilings.send?.p99Ms ?? 0, 1);
    rows.push([
      'Send path: p99 latency',
      ...cells((r) =>
        r.send
          ? `**${fmt(r.send.p99Ms)} ms** = **${fmt(r.send.p99Ms / p99(r), 1)} ×** the ceiling's ${fmt(r.ceilings.send?.p99Ms ?? 0)} ms; p50 ${fmt(r.send.p50Ms)} ms (ceiling ${fmt(r.ceilings.send?.p50Ms ?? 0)} ms)`
          : '',
      ),
      '≤ 3 × ceiling p99',
      goal(prod?.send && prod.send.p99Ms <= 3 * p99(prod)),
    ]);
  }
  if (ONLY.has('campaign')) {
    rows.push([
      `Campaign: ${fmt(CAMPAIGN_RECIPIENTS)} recipients over ${CAMPAIGN_NUMBERS} numbers, ${CAMPAIGN_LIMIT}/s each (simulator limit)`,
      ...cells((r) =>
        r.campaign
          ? `**${r.campaign.ratePerNumber.map((x) => fmt(x)).join(', ')}/s** per number = **${pct(Math.min(...r.campaign.ratePerNumber), CAMPAIGN_LIMIT)}**–${pct(Math.max(...r.campaign.ratePerNumber), CAMPAIGN_LIMIT)} of the limit; at most ${fmt(r.campaign.maxWindow)} in any 1 s (${fmt(r.campaign.refused)} refused with 130429); duplicates ${fmt(r.campaign.duplicates)}, lost ${fmt(r.campaign.lost)}, unknown ${fmt(r.campaign.unknown)}; ${fmt(r.campaign.seconds, 1)} s`
          : '',
      ),
      '≥ 95 % of the limit, never above it in 1 s; 0 duplicates, 0 lost',
      goal(
        prod?.campaign &&
          Math.min(...prod.campaign.ratePerNumber) >= 0.95 * CAMPAIGN_LIMIT &&
          prod.campaign.maxWindow <= CAMPAIGN_LIMIT &&
          prod.campaign.duplicates === 0 &&
          prod.campaign.lost === 0,
      ),
    ]);
    rows.push([
      `Campaign: the tenant's own sends on a number beside its campaign at the full rate (one every 100 ms)`,
      ...cells((r) =>
        r.campaign
          ? `p50 **${fmt(r.campaign.singles.p50Ms, 1)} ms**, p90 **${fmt(r.campaign.singles.p90Ms, 1)} ms**, max ${fmt(r.campaign.singles.maxMs, 1)} ms; ${fmt(r.campaign.singles.sent)} sent, ${fmt(r.campaign.singles.failed)} not 2xx${
              r.campaign.singles.wait
                ? `; of which waiting for a place (${fmt(r.campaign.singles.wait.counted)} counted): mean ${fmt(r.campaign.singles.wait.meanMs, 1)} ms, nine in ten ≤ ${fmt(r.campaign.singles.wait.p90BucketMs)} ms`
                : ''
            }`
          : '',
      ),
      // queued behind the campaign's calls, a send would wait for the batch being sent (SINGLE_P90_GOAL_MS)
      `p90 ≤ ${SINGLE_P90_GOAL_MS} ms (never queued behind the campaign), all 2xx`,
      goal(prod?.campaign && prod.campaign.singles.sent > 0 && prod.campaign.singles.failed === 0 && prod.campaign.singles.p90Ms <= SINGLE_P90_GOAL_MS),
    ]);
  }
  if (ONLY.has('ingest')) {
    rows.push([
      'Inbound ingest: accepted webhooks/s (one edge)',
      ...cells((r) =>
        r.ingest
          ? `**${fmt(r.ingest.rate)}** = **${ratio(r.ingest.rate, r.ceilings.ingest)}** of ${fmt(r.ceilings.ingest ?? 0)} (Koa, no work); ${fmt(r.ingest.non2xx)} non-2xx; ${fmt(r.ingest.stored)} stored of ${fmt(r.ingest.accepted)} accepted`
          : '',
      ),
      '≥ 50 % of ceiling, every accepted body stored',
      goal(prod?.ingest && prod.ingest.rate >= 0.5 * (prod.ceilings.ingest ?? Infinity) && prod.ingest.stored >= prod.ingest.accepted),
    ]);
  }
  const sc = prod?.scaling;
  if (sc?.dispatch2 && prod?.dispatch) {
    rows.push([
      'Scaling: dispatch, two dispatchers against one',
      ...configs.map((c) =>
        c === 'production'
          ? `**${fmt(sc.dispatch2!.rate)}/s vs ${fmt(prod.dispatch!.rate)}/s = ${fmt(sc.dispatch2!.rate / prod.dispatch!.rate, 2)} ×**; ${fmt(sc.dispatch2!.distinct)} received, ${fmt(sc.dispatch2!.succeeded)} recorded`
          : '(one data directory per process: no replicas)',
      ),
      'reported (2 cores bound it)',
      '—',
    ]);
  }
  if (sc?.ingest2 && prod?.ingest) {
    rows.push([
      'Scaling: ingest, two edges against one',
      ...configs.map((c) =>
        c === 'production'
          ? `**${fmt(sc.ingest2!.rate)}/s vs ${fmt(prod.ingest!.rate)}/s = ${fmt(sc.ingest2!.rate / prod.ingest!.rate, 2)} ×**; ${fmt(sc.ingest2!.stored)} stored of ${fmt(sc.ingest2!.accepted)} accepted`
          : '(not measured)',
      ),
      'reported (2 cores bound it)',
      '—',
    ]);
  }
  if (ONLY.has('tracing')) {
    const t = prod?.sendTraced;
    rows.push([
      'Send path with tracing on (OpenTelemetry, OTLP/HTTP to a local sink) against off',
      ...configs.map((c) =>
        c !== 'production'
          ? ''
          : t && prod?.send
            ? `**${fmt(t.requestsPerSec)} req/s vs ${fmt(prod.send.requestsPerSec)} req/s off = ${fmt(t.requestsPerSec / prod.send.requestsPerSec, 2)} ×**; p99 ${fmt(t.p99Ms)} ms vs ${fmt(prod.send.p99Ms)} ms; ${fmt(t.non2xx)} non-2xx; ${fmt(prod.traceExports?.exports ?? 0)} OTLP exports (${fmt((prod.traceExports?.bytes ?? 0) / 1024)} KB)`
            : 'not measured: this build has no tracing switch (libs/telemetry)',
      ),
      'reported',
      '—',
    ]);
  }
  const names = [...new Set(configs.flatMap((c) => [...results[c]!.rss.keys()]))];
  for (const name of names) {
    const ours = name !== 'nats-server' && name !== 'provider-sim';
    const p = prod?.rss.get(name);
    rows.push([
      `Peak RSS: ${name}`,
      ...cells((r) => (r.rss.has(name) ? `${fmt(r.rss.get(name)!)} MB` : '')),
      ours ? `≤ ${RSS_GOAL_MB} MB` : '(not ours)',
      ours ? goal(p === undefined ? undefined : p <= RSS_GOAL_MB) : '—',
    ]);
  }
  return table(columns, rows);
}

/**
 * CPU milliseconds per operation by process, for each pipeline and its ceiling: where the time goes. Beside each
 * pipeline, its CPU per operation as a multiple of its ceiling's in the same run: the machine's speed, which moves
 * both by as much as 1.5× from one run to the next on a shared host, divides out of it.
 */
function cpuReport(results: Partial<Record<ConfigName, ConfigResult>>): string {
  const rows: Row[] = [];
  for (const c of CONFIGS) {
    const r = results[c];
    if (!r) continue;
    for (const [what, use] of r.cpu) {
      if (!use.ops) continue;
      const total = [...use.byProcess.values()].reduce((a, b) => a + b, 0);
      const parts = [...use.byProcess]
        .filter(([, t]) => t / total >= 0.02)
        .sort((a, b) => b[1] - a[1])
        .map(([n, t]) => `${n} ${fmt((1000 * t) / use.ops, 3)}`);
      const ceiling = what.endsWith(' ceiling') ? undefined : r.cpu.get(`${what.split(',')[0]} ceiling`);
      // and, measured in pairs of slices, the range of the pairs' multiples: how far the machine moved them
      const range = use.pairs?.length ? ` (pairs ${fmt(Math.min(...use.pairs), 1)}–${fmt(Math.max(...use.pairs), 1)})` : '';
      const multiple = ceiling?.ops ? `${fmt(total / use.ops / cpuPerOp(ceiling.byProcess, ceiling.ops), 1)} ×${range}` : '';
      rows.push([`${c}: ${what}`, fmt(use.ops), `**${fmt((1000 * total) / use.ops, 3)}**`, multiple, parts.join(', ')]);
    }
  }
  return table(['Pipeline', 'Operations', 'CPU ms per operation, all processes', "× the ceiling's", 'By process (ms per operation; ≥ 2 % of the total)'], rows);
}

async function main() {
  const failures: string[] = [];
  const natsBin = process.env.NATS_SERVER_BIN ?? 'nats-server';
  const t0 = performance.now();
  const receiver = await startHelper(helpersBundle, 'receiver');
  const receiverUrl = `http://127.0.0.1:${receiver.port}`;
  const results: Partial<Record<ConfigName, ConfigResult>> = {};
  let lists: ListsResult | undefined;
  try {
    // BENCH_ONLY=lists (or acks) measures the lists (or the acknowledgements) alone, without a stack
    const pipelines = [...ONLY].some((o) => o !== 'lists' && o !== 'acks');
    for (const c of pipelines ? CONFIGS : []) results[c] = await runConfig(c, natsBin, receiver.proc, receiverUrl, failures);
  } finally {
    await receiver.proc.stop();
  }
  // the message log's lists (issue 27), production only: the messaging store alone on its own database
  const listsDb = process.env.BENCH_DATABASE_URL ?? process.env.DATABASE_URL;
  if (ONLY.has('lists') && CONFIGS.includes('production') && listsDb) lists = await listsBench(listsDb, log);
  // what a JetStream acknowledgement costs by the way it is made (libs/bus): only when asked for
  const acks: AckResult[] | undefined = ONLY.has('acks') ? await acksBench(natsBin, log) : undefined;
  const minutes = (performance.now() - t0) / 60_000;
  console.log(
    `\n## Benchmark — ${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown cpu'}), Node ${process.version}, ${fmt(minutes, 1)} min\n`,
  );
  console.log(report(results));
  console.log(`\nCPU time per operation (user + system, from /proc; the machine's other load not included):\n`);
  console.log(cpuReport(results));
  if (lists) console.log(`\n${listsReport(lists)}`);
  if (acks) console.log(`\nAcknowledgements (one nats-server, ${CONCURRENCY_NOTE}):\n\n${acksReport(acks)}`);
  if (failures.length) {
    console.error(`\nCorrectness failures:\n- ${failures.join('\n- ')}`);
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
