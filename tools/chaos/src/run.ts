import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { createLogger } from '@gateway/logger';
import { SERVICES, TEST_PLANS, type StartedService } from '@gateway/test-stack';
import { bundleApp } from './bundle';
import {
  createTestDatabase,
  freePort,
  startNatsCluster,
  startWebhookReceiver,
  tempDir,
  waitFor,
  type TestNatsCluster,
  type WebhookReceiver,
} from '@gateway/testing';
import { ChaosCampaign } from './campaign';
import { Load } from './load';
import { Replica, type CounterSpec, type Env } from './replica';
import { buildReport, type ChaosReport, type KillRecord } from './report';

export interface ChaosOptions {
  /** How long the load runs; the four kills are spread over it. */
  loadSeconds: number;
  webhooksPerSec: number;
  sendsPerSec: number;
  /** Pause between a kill and the restart of what was killed. */
  restartAfterMs: number;
  /** Longest wait for the backlog to drain after the load stops. */
  drainTimeoutMs: number;
  /** A campaign of this many recipients runs through the kills (0: none), at `campaignRate` per second. */
  campaignRecipients?: number;
  campaignRate?: number;
  /** Requests of the load in flight at most (the generator waits beyond it). */
  maxInFlight?: number;
  log?: (line: string) => void;
}

const APP_SECRET = 'sim-app-secret';
const MESSAGING_COUNTERS: CounterSpec = {
  sends: { family: 'grpc_server_requests_total', labels: { method: /^MessagingService\/Send/ } },
  inbound: { family: 'inbound_updates_total', labels: { outcome: /^routed$/ } },
};
const DISPATCHER_COUNTERS: CounterSpec = { deliveries: { family: 'webhook_deliveries_total', labels: { outcome: /^succeeded$/ } } };
const EDGE_COUNTERS: CounterSpec = {
  webhooks: { family: 'http_requests_total', labels: { route: /webhooks\/provider/, status: /^2/ } },
  sends: { family: 'http_requests_total', labels: { route: /send-buttons/, status: /^2/ } },
};

/**
 * The fault run: a 3-node JetStream cluster with R3 streams, PostgreSQL, two replicas each of edge, messaging
 * and dispatcher (OS processes, SIGKILLed and restarted), one of tenant-directory, flows and signup, the
 * provider simulator and a webhook receiver (those in this process: they are never killed). Under a steady
 * load it kills one dispatcher, one messaging, one edge and the NATS server leading PROVIDER_INBOUND, then
 * waits for the backlog to drain and counts every event.
 */
export async function runChaos(opts: ChaosOptions): Promise<ChaosReport> {
  const log = opts.log ?? (() => undefined);
  const serverUrl = process.env.DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    throw new Error(
      'the fault run needs a PostgreSQL server (DATABASE_URL or TEST_DATABASE_URL): replicas in separate processes share one database, which embedded PGlite cannot serve',
    );
  }
  const cleanups: Array<() => Promise<unknown>> = [];
  const cleanup = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  };
  try {
    const started = Date.now();
    log('starting a 3-node JetStream cluster');
    const cluster = await startNatsCluster(3);
    cleanups.push(() => cluster.dispose());
    const db = await createTestDatabase(serverUrl);
    cleanups.push(() => db.drop());
    const dataDir = tempDir('gw-chaos-');
    cleanups.push(async () => dataDir.remove());
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.close());
    const { startProviderSim } = await import('@gateway/app-provider-sim');
    const logger = createLogger({ name: 'chaos', level: process.env.CHAOS_LOG_LEVEL ?? 'silent' });
    const sim = await startProviderSim({
      port: 0,
      host: '127.0.0.1',
      appId: 'sim-app-id',
      appSecret: APP_SECRET,
      verifyToken: 'sim-verify-token',
      configId: 'sim-config-id',
      autoStatuses: false,
      logger,
    });
    cleanups.push(() => sim.stop());

    const edgePorts = [await freePort(), await freePort()];
    const env: Env = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      NATS_URL: cluster.url,
      JETSTREAM_REPLICAS: '3',
      DATABASE_URL: db.databaseUrl,
      DATA_DIR: dataDir.path,
      GATEWAY_ADMIN_TOKEN: randomBytes(24).toString('base64url'),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      // the fault run measures delivery under faults, not the plans' rate limits
      PLANS: TEST_PLANS,
      PUBLIC_BASE_URL: `http://127.0.0.1:${edgePorts[0]}`,
      PROVIDER_BASE_URL: sim.url,
      PROVIDER_APP_ID: 'sim-app-id',
      PROVIDER_APP_SECRET: APP_SECRET,
      PROVIDER_VERIFY_TOKEN: 'sim-verify-token',
      PROVIDER_CONFIG_ID: 'sim-config-id',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // short attempt timeouts keep the ack wait (and so the redelivery after a SIGKILL) at its 10 s floor
      WEBHOOK_TIMEOUT_MS: '2500',
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      METRICS_PORT: '0',
    };

    // the services that are never killed run in this process
    const inProcess: StartedService[] = [];
    cleanups.push(async () => {
      for (const s of inProcess.reverse()) await s.stop().catch(() => undefined);
    });
    for (const [name, addrVar] of [
      ['tenant-directory', 'TENANT_DIRECTORY_ADDR'],
      ['flows', 'FLOWS_ADDR'],
      ['signup', 'SIGNUP_ADDR'],
    ] as const) {
      const svc = await SERVICES[name].start(env, logger.child({ svc: name }));
      inProcess.push(svc);
      env[addrVar] = `127.0.0.1:${svc.grpcPort}`;
    }
    log(`in-process services up (${((Date.now() - started) / 1000).toFixed(1)} s); bundling edge, messaging, dispatcher`);

    const [messagingBundle, dispatcherBundle, edgeBundle] = await Promise.all(['messaging', 'dispatcher', 'edge'].map((a) => bundleApp(a)));
    const bundles = { messaging: messagingBundle, dispatcher: dispatcherBundle, edge: edgeBundle };
    cleanups.push(async () => Object.values(bundles).forEach((b) => rmSync(dirname(b), { recursive: true, force: true })));
    // two replicas of each gRPC service on two loopback addresses, named together in one ipv4: target
    const grpcPair = async (app: 'messaging' | 'dispatcher', counters: CounterSpec) => {
      const out: Replica[] = [];
      for (const [i, host] of ['127.0.0.1', '127.0.0.2'].entries())
        out.push(new Replica(`${app}-${i + 1}`, 'grpc', bundles[app], env, host, await freePort(), await freePort(), counters));
      return out;
    };
    const messaging = await grpcPair('messaging', MESSAGING_COUNTERS);
    const dispatcher = await grpcPair('dispatcher', DISPATCHER_COUNTERS);
    env.MESSAGING_ADDR = `ipv4:${messaging.map((r) => r.address).join(',')}`;
    env.DISPATCHER_ADDR = `ipv4:${dispatcher.map((r) => r.address).join(',')}`;
    const edges: Replica[] = [];
    for (const [i, port] of edgePorts.entries())
      edges.push(new Replica(`edge-${i + 1}`, 'http', bundles.edge, env, '127.0.0.1', port, await freePort(), EDGE_COUNTERS));
    const replicas = [...messaging, ...dispatcher, ...edges];
    cleanups.push(async () => {
      for (const r of replicas.reverse()) await r.stop().catch(() => undefined);
    });
    await Promise.all([...messaging, ...dispatcher].map((r) => r.start()));
    await Promise.all(edges.map((r) => r.start()));
    log(`gateway up (${((Date.now() - started) / 1000).toFixed(1)} s)`);

    const target = await provision(edges[0], env, sim.url, receiver);
    const load = new Load(
      { ...target, edges: edges.map((e) => `http://${e.address}`), appSecret: APP_SECRET, runId: randomBytes(4).toString('hex') },
      opts.maxInFlight,
    );
    const campaign = new ChaosCampaign(
      { base: `http://${edges[0].address}`, apiKey: target.apiKey, clientId: target.clientId, wabaId: target.wabaId, simUrl: sim.url },
      opts.campaignRecipients ?? 0,
      opts.campaignRate ?? 20,
      load.t.runId,
    );
    await campaign.create();
    const scraper = setInterval(() => void Promise.all(replicas.map((r) => r.scrape())), 1000);
    cleanups.push(async () => clearInterval(scraper));

    // the load, with the four kills spread over it
    const kills: KillRecord[] = [];
    const loadMs = opts.loadSeconds * 1000;
    const t0 = Date.now();
    load.start(opts.webhooksPerSec, opts.sendsPerSec);
    await campaign.start();
    const at = (fraction: number) => new Promise((r) => setTimeout(r, Math.max(0, t0 + fraction * loadMs - Date.now())));
    const killReplica = async (r: Replica, what: string) => {
      const killedAt = Date.now();
      log(`SIGKILL ${r.name} (pid ${r.pid}) at +${((killedAt - t0) / 1000).toFixed(1)} s`);
      await r.kill();
      await new Promise((res) => setTimeout(res, opts.restartAfterMs));
      await r.start();
      kills.push({ what, target: r.name, atMs: killedAt - t0, recoveredMs: Date.now() - killedAt });
    };
    const killNats = async () => {
      const leader = (await cluster.streamLeader('PROVIDER_INBOUND')) ?? cluster.nodes[0].name;
      const killedAt = Date.now();
      log(`SIGKILL nats-server ${leader} (leader of PROVIDER_INBOUND) at +${((killedAt - t0) / 1000).toFixed(1)} s`);
      await cluster.kill(leader);
      const newLeader = await waitFor(
        async () => {
          const l = await streamLeaderVia(cluster, 'PROVIDER_INBOUND');
          return l && l !== leader ? l : undefined;
        },
        { timeoutMs: 60_000, intervalMs: 100, what: 'a new PROVIDER_INBOUND leader' },
      );
      const electedMs = Date.now() - killedAt;
      await new Promise((res) => setTimeout(res, Math.max(0, opts.restartAfterMs - electedMs)));
      await cluster.start(leader);
      await waitFor(() => replicasCurrent(cluster), { timeoutMs: 90_000, intervalMs: 250, what: 'every stream replica current again' });
      kills.push({
        what: 'nats-server (stream leader)',
        target: `${leader} → ${newLeader} leads`,
        atMs: killedAt - t0,
        recoveredMs: Date.now() - killedAt,
        electedMs,
      });
    };
    await at(0.12);
    await killReplica(dispatcher[1], 'dispatcher');
    await at(0.34);
    await killReplica(messaging[1], 'messaging');
    await at(0.56);
    await killReplica(edges[1], 'edge');
    await at(0.78);
    await killNats();
    await at(1);
    const loadStoppedAt = Date.now();
    log(`load stopped at +${((loadStoppedAt - t0) / 1000).toFixed(1)} s; waiting for the backlog to drain`);
    await load.stop(30_000);
    // the campaign settles meanwhile: a killed replica's sends become unknown when their lease runs out
    const campaignSettled = campaign.settle(`http://${edges[0].address}`, opts.drainTimeoutMs);

    // drain: every accepted webhook's event at the receiver, then a little longer for late repeats
    const expected = new Set(load.accepted().map((w) => w.wamid));
    await waitFor(() => receivedWamids(receiver, target.runIdPattern(load)).size >= expected.size || undefined, {
      timeoutMs: opts.drainTimeoutMs,
      intervalMs: 250,
      what: 'the backlog to drain',
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 2000));
    // from the end of the load to the last first delivery of an event of this run
    const firstDelivery = new Map<string, number>();
    for (const r of receiver.received)
      for (const m of r.raw.toString('utf8').matchAll(target.runIdPattern(load))) if (!firstDelivery.has(m[0])) firstDelivery.set(m[0], r.at);
    const drainMs = Math.max(0, Math.max(0, ...firstDelivery.values()) - loadStoppedAt);
    // the campaign: every recipient sent or unknown
    const campaignSeconds = await campaignSettled;
    const campaignOutcome = await campaign.outcome(`http://${edges[0].address}`, campaignSeconds, sim.state.requests);
    log(`campaign settled after ${campaignSeconds.toFixed(1)} s: ${JSON.stringify(campaignOutcome.byStatus)}`);
    await Promise.all(replicas.map((r) => r.scrape()));

    // delivery records are written as attempts finish: wait until every delivered event has one (or 30 s)
    const deliveredIds = () =>
      new Set(receiver.received.filter((r) => target.runIdPattern(load).test(r.raw.toString('utf8'))).map((r) => String(r.headers['x-event-id'])));
    let records = await deliveryRecords(`http://${edges[0].address}`, target.apiKey, target.clientId);
    const recordDeadline = Date.now() + 30_000;
    while (Date.now() < recordDeadline) {
      const have = new Set(records.map((r) => r.event_id));
      if ([...deliveredIds()].every((id) => have.has(id)) && records.every((r) => r.status !== 'pending')) break;
      await new Promise((r) => setTimeout(r, 1000));
      records = await deliveryRecords(`http://${edges[0].address}`, target.apiKey, target.clientId);
    }
    const report = buildReport({
      load,
      expected,
      receiver,
      wamidPattern: target.runIdPattern(load),
      simRequests: sim.state.requests,
      records: records.filter((r) => r.event_type === 'chat'),
      kills,
      drainMs,
      loadMs: loadStoppedAt - t0,
      campaign: campaignOutcome,
      replicas: { messaging, dispatcher, edge: edges },
      totalMs: Date.now() - started,
    });
    return report;
  } finally {
    await cleanup();
  }
}

async function provision(edge: Replica, env: Env, simUrl: string, receiver: WebhookReceiver) {
  const base = `http://${edge.address}`;
  const json = async <T>(res: Response): Promise<T> => {
    const text = await res.text();
    if (!res.ok) throw new Error(`${res.status} ${text}`);
    return JSON.parse(text) as T;
  };
  const admin = { authorization: `Bearer ${env.GATEWAY_ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const { api_key: apiKey } = await json<{ api_key: string }>(
    await fetch(`${base}/admin/tenants`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'Chaos', email: 'chaos@example.test' }) }),
  );
  const phone = await json<{ phone_number_id: string; waba_id: string; access_token: string }>(
    await fetch(`${simUrl}/_sim/phone-numbers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }),
  );
  // the run measures failover, not the provider's limits: every send goes to one recipient at a steady rate, which
  // the simulator's 24-hour window and pair-rate limit (on by default, as in production) would refuse
  const simPut = (path: string, body: unknown) =>
    fetch(`${simUrl}${path}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await simPut('/_sim/window', { mode: 'off' });
  await simPut('/_sim/rate-limits', { throughput_per_second: null, pair_rate: false });
  const client = await json<{ id: string }>(
    await fetch(`${base}/api/clients/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        display_name: 'Chaos shop',
        business_account_id: phone.waba_id,
        phone_number_id: phone.phone_number_id,
        access_token: phone.access_token,
        webhook_url: receiver.url,
      }),
    }),
  );
  return {
    apiKey,
    clientId: client.id,
    phoneNumberId: phone.phone_number_id,
    wabaId: phone.waba_id,
    runIdPattern: (load: Load) => new RegExp(`wamid\\.chaos\\.${load.t.runId}\\.\\d+`, 'g'),
  };
}

/** The wamids of this run found in the deliveries the receiver got (a chat event carries the raw provider body). */
export function receivedWamids(receiver: WebhookReceiver, pattern: RegExp): Set<string> {
  const out = new Set<string>();
  for (const r of receiver.received) for (const m of r.raw.toString('utf8').matchAll(pattern)) out.add(m[0]);
  return out;
}

async function streamLeaderVia(cluster: TestNatsCluster, stream: string): Promise<string | undefined> {
  return cluster.streamLeader(stream).catch(() => undefined);
}

async function replicasCurrent(cluster: TestNatsCluster): Promise<boolean> {
  const { connect } = await import('nats');
  const nc = await connect({ servers: cluster.nodes.map((n) => n.url), timeout: 2000 });
  try {
    const jsm = await nc.jetstreamManager();
    for (const name of ['PROVIDER_INBOUND', 'EVENTS', 'WEBHOOK_RETRIES']) {
      const c = (await jsm.streams.info(name)).cluster;
      if (!c?.leader || (c.replicas ?? []).length !== 2 || !c.replicas!.every((r) => r.current)) return false;
    }
    return true;
  } finally {
    await nc.close();
  }
}

export interface DeliveryRecordRow {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
}

/** Every delivery record of the client, through the edge's API (all pages). */
async function deliveryRecords(base: string, apiKey: string, clientId: string): Promise<DeliveryRecordRow[]> {
  const out: DeliveryRecordRow[] = [];
  let cursor: string | null = null;
  do {
    const q: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await fetch(`${base}/api/clients/${clientId}/webhook/deliveries?${q}`, { headers: { authorization: `Bearer ${apiKey}` } });
    if (!res.ok) throw new Error(`listing deliveries: ${res.status} ${await res.text()}`);
    const page = (await res.json()) as { data: DeliveryRecordRow[]; next_cursor: string | null };
    out.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}
