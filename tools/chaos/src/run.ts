import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { TEST_PLANS } from '@gateway/test-stack';
import { bundleApp } from './bundle';
import { createTestDatabase, freePort, SimControl, startNatsCluster, tempDir, waitFor, type TestNatsCluster } from '@gateway/testing';
import { ChaosCampaign } from './campaign';
import { Load } from './load';
import { ChaosReceiver, type ReceivedDelivery } from './receiver';
import { processCpuSeconds, Replica, type CounterSpec, type Env } from './replica';
import { buildReport, type ChaosReport, type KillRecord, type SimRequest } from './report';

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
  // Send and SendBatch calls (the edge sends the sends of requests that arrive together in one call): that both
  // replicas are called, not how many sends each made
  'send calls': { family: 'grpc_server_requests_total', labels: { method: /^MessagingService\/Send/ } },
  inbound: { family: 'inbound_updates_total', labels: { outcome: /^routed$/ } },
};
const DISPATCHER_COUNTERS: CounterSpec = { deliveries: { family: 'webhook_deliveries_total', labels: { outcome: /^succeeded$/ } } };
const EDGE_COUNTERS: CounterSpec = {
  webhooks: { family: 'http_requests_total', labels: { route: /webhooks\/provider/, status: /^2/ } },
  sends: { family: 'http_requests_total', labels: { route: /send-buttons/, status: /^2/ } },
};

/**
 * The fault run: a 3-node JetStream cluster with R3 streams, PostgreSQL, two replicas each of edge, messaging
 * and dispatcher (OS processes, SIGKILLed and restarted), one each of tenant-directory, flows, signup and the
 * provider simulator (OS processes too, never killed), and a webhook receiver in a worker thread of this
 * process. This process makes the load and keeps the count: what answers the gateway (the receiver, the
 * simulator, the services) never shares its event loop with the load generator. Under a steady load it kills one
 * dispatcher, one messaging, one edge and the NATS server leading PROVIDER_INBOUND, then waits for the backlog to
 * drain and counts every event.
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
    // how busy this process's main thread (the load generator, the count) was, and what it cost
    const cpuAtStart = process.cpuUsage();
    const mainDelay = monitorEventLoopDelay({ resolution: 10 });
    mainDelay.enable();
    const mainEluAtStart = performance.eventLoopUtilization();
    cleanups.push(async () => mainDelay.disable());
    log('starting a 3-node JetStream cluster');
    const cluster = await startNatsCluster(3);
    cleanups.push(() => cluster.dispose());
    const db = await createTestDatabase(serverUrl);
    cleanups.push(() => db.drop());
    const dataDir = tempDir('gw-chaos-');
    cleanups.push(async () => dataDir.remove());
    // this run's inbound message ids: the receiver picks them out of the events it gets
    const runId = randomBytes(4).toString('hex');
    const receiver = await ChaosReceiver.start({ wamidPattern: `wamid\\.chaos\\.${runId}\\.\\d+` });
    cleanups.push(() => receiver.close());

    log(`receiver up (${((Date.now() - started) / 1000).toFixed(1)} s); bundling the apps`);
    const apps = ['provider-sim', 'tenant-directory', 'flows', 'signup', 'messaging', 'dispatcher', 'edge'] as const;
    const bundles = Object.fromEntries(await Promise.all(apps.map(async (a) => [a, await bundleApp(a)] as const))) as Record<(typeof apps)[number], string>;
    cleanups.push(async () => Object.values(bundles).forEach((b) => rmSync(dirname(b), { recursive: true, force: true })));
    const singles: Replica[] = [];
    cleanups.push(async () => {
      for (const r of singles.reverse()) await r.stop().catch(() => undefined);
    });

    const simPort = await freePort();
    const sim = new Replica(
      'provider-sim',
      'http',
      bundles['provider-sim'],
      {
        LOG_LEVEL: 'warn',
        PROVIDER_APP_ID: 'sim-app-id',
        PROVIDER_APP_SECRET: APP_SECRET,
        PROVIDER_VERIFY_TOKEN: 'sim-verify-token',
        PROVIDER_CONFIG_ID: 'sim-config-id',
        SIM_AUTO_STATUSES: 'false',
        // every send of the run is counted in the log at the end (checked: none may have been let go)
        SIM_REQUEST_LOG_MAX: '2000000',
      },
      '127.0.0.1',
      simPort,
      await freePort(),
      {},
      '/_sim/health',
    );
    singles.push(sim);
    await sim.start();
    const simUrl = `http://${sim.address}`;

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
      PROVIDER_BASE_URL: simUrl,
      PROVIDER_APP_ID: 'sim-app-id',
      PROVIDER_APP_SECRET: APP_SECRET,
      PROVIDER_VERIFY_TOKEN: 'sim-verify-token',
      PROVIDER_CONFIG_ID: 'sim-config-id',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // the delivery timeout and retry schedule are production's (WEBHOOK_TIMEOUT_MS 10 s, retries after 5 s and
      // 25 s; so the ack wait, the redelivery after a SIGKILL, is 25 s): the run's timeline leaves room for it
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      METRICS_PORT: '0',
    };

    // the services that are never killed: one process each, the tenant directory first (the others call it)
    const single = async (name: 'tenant-directory' | 'flows' | 'signup', addrVar: string) => {
      const r = new Replica(name, 'grpc', bundles[name], env, '127.0.0.1', await freePort(), await freePort(), {});
      singles.push(r);
      await r.start();
      env[addrVar] = r.address;
    };
    await single('tenant-directory', 'TENANT_DIRECTORY_ADDR');
    await Promise.all([single('flows', 'FLOWS_ADDR'), single('signup', 'SIGNUP_ADDR')]);
    log(`simulator and single services up (${((Date.now() - started) / 1000).toFixed(1)} s)`);

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

    const target = await provision(edges[0], env, simUrl, receiver.url);
    const load = new Load({ ...target, edges: edges.map((e) => `http://${e.address}`), appSecret: APP_SECRET, runId }, opts.maxInFlight);
    const campaign = new ChaosCampaign(
      { base: `http://${edges[0].address}`, apiKey: target.apiKey, clientId: target.clientId, wabaId: target.wabaId, simUrl },
      opts.campaignRecipients ?? 0,
      opts.campaignRate ?? 20,
      runId,
    );
    await campaign.create();
    // the NATS servers' CPU, read every second by pid (a killed node's last reading stays)
    const natsCpu = new Map<number, { node: string; seconds: number }>();
    const readNatsCpu = () => {
      for (const n of cluster.nodes) {
        const pid = n.pid();
        const seconds = pid === undefined ? undefined : processCpuSeconds(pid);
        if (pid !== undefined && seconds !== undefined) natsCpu.set(pid, { node: n.name, seconds });
      }
    };
    const scraper = setInterval(() => {
      readNatsCpu();
      void Promise.all(replicas.map((r) => r.scrape()));
    }, 1000);
    cleanups.push(async () => clearInterval(scraper));

    // the load, with the four kills spread over it
    const kills: KillRecord[] = [];
    const loadMs = opts.loadSeconds * 1000;
    const t0 = Date.now();
    load.start(opts.webhooksPerSec, opts.sendsPerSec);
    await campaign.start();
    const at = (fraction: number) => new Promise((r) => setTimeout(r, Math.max(0, t0 + fraction * loadMs - Date.now())));
    const killReplica = async (r: Replica, what: string) => {
      const pid = r.pid;
      const killedAt = await r.kill();
      log(`SIGKILL ${r.name} (pid ${pid}) at +${((killedAt - t0) / 1000).toFixed(1)} s`);
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
    await waitFor(() => receivedWamids(receiver.received).size >= expected.size || undefined, {
      timeoutMs: opts.drainTimeoutMs,
      intervalMs: 250,
      what: 'the backlog to drain',
    }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 2000));
    await receiver.sync();
    // from the end of the load to the last first delivery of an event of this run
    const firstDelivery = new Map<string, number>();
    for (const r of receiver.received) for (const w of r.wamids) if (!firstDelivery.has(w)) firstDelivery.set(w, r.at);
    let lastFirst = 0;
    for (const at of firstDelivery.values()) lastFirst = Math.max(lastFirst, at);
    const drainMs = Math.max(0, lastFirst - loadStoppedAt);
    // the campaign: every recipient sent or unknown
    const campaignSeconds = await campaignSettled;
    const simRequests = await providerSends(simUrl);
    const campaignOutcome = await campaign.outcome(`http://${edges[0].address}`, campaignSeconds, simRequests);
    log(`campaign settled after ${campaignSeconds.toFixed(1)} s: ${JSON.stringify(campaignOutcome.byStatus)}`);
    await Promise.all(replicas.map((r) => r.scrape()));

    // delivery records are written as attempts finish: wait until every delivered event has one (or 30 s)
    const deliveredIds = () => new Set(receiver.received.filter((r) => r.wamids.length).map((r) => r.eventId));
    let records = await deliveryRecords(`http://${edges[0].address}`, target.apiKey, target.clientId);
    const recordDeadline = Date.now() + 30_000;
    while (Date.now() < recordDeadline) {
      const have = new Set(records.map((r) => r.event_id));
      if ([...deliveredIds()].every((id) => have.has(id)) && records.every((r) => r.status !== 'pending')) break;
      await new Promise((r) => setTimeout(r, 1000));
      await receiver.sync();
      records = await deliveryRecords(`http://${edges[0].address}`, target.apiKey, target.clientId);
    }
    await receiver.sync();
    await Promise.all([...replicas, ...singles].map((r) => r.scrape()));
    readNatsCpu();
    const natsByNode = new Map<string, number>();
    for (const { node, seconds } of natsCpu.values()) natsByNode.set(node, (natsByNode.get(node) ?? 0) + seconds);
    const ownCpu = process.cpuUsage(cpuAtStart);
    const report = buildReport({
      load,
      expected,
      received: receiver.received,
      simRequests,
      loadStartedAt: t0,
      records: records.filter((r) => r.event_type === 'chat'),
      kills,
      drainMs,
      loadMs: loadStoppedAt - t0,
      campaign: campaignOutcome,
      replicas: { messaging, dispatcher, edge: edges },
      cpuSeconds: [
        ...[...replicas, ...singles].map((r): [string, number] => [r.name, r.cpuSeconds()]),
        ...[...natsByNode].map(([node, seconds]): [string, number] => [`nats ${node}`, seconds]),
        ['the run (load generator, receiver thread, count)', (ownCpu.user + ownCpu.system) / 1e6],
      ],
      threads: {
        main: {
          busy: performance.eventLoopUtilization(mainEluAtStart).utilization,
          delayP99Ms: mainDelay.percentile(99) / 1e6,
          delayMaxMs: mainDelay.max / 1e6,
        },
        receiver: receiver.stats,
      },
      totalMs: Date.now() - started,
    });
    return report;
  } finally {
    await cleanup();
  }
}

async function provision(edge: Replica, env: Env, simUrl: string, webhookUrl: string) {
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
        webhook_url: webhookUrl,
      }),
    }),
  );
  return {
    apiKey,
    clientId: client.id,
    phoneNumberId: phone.phone_number_id,
    wabaId: phone.waba_id,
  };
}

/** The wamids of this run found in the deliveries the receiver got. */
export function receivedWamids(received: ReceivedDelivery[]): Set<string> {
  const out = new Set<string>();
  for (const r of received) for (const w of r.wamids) out.add(w);
  return out;
}

/** The send requests the simulator got (its log of received requests), read at the end of the run. */
async function providerSends(simUrl: string): Promise<SimRequest[]> {
  const { calls, dropped } = await new SimControl(simUrl).requestLog({ method: 'POST', pathContains: '/messages' });
  // a log that let requests go would count sends as never made: the run raises SIM_REQUEST_LOG_MAX
  if (dropped) throw new Error(`the simulator's request log let ${dropped} requests go: raise SIM_REQUEST_LOG_MAX above the run's provider calls`);
  return calls;
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
