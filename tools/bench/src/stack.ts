import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { GRPC_SERVICES, v8EnvOf } from '@gateway/config';
import { freePort, writeNatsServerConf } from '@gateway/testing';
import { start, waitPort, type Proc } from './processes';

/** The plan catalogue of a bench run: every plan's names with limits no run reaches. */
const UNLIMITED = { max_clients: 10_000, sends_per_day: 100_000_000, sends_per_second: 1_000_000, campaigns_per_day: 100_000, requests_per_second: 1_000_000 };
const TEST_PLANS = JSON.stringify(Object.fromEntries(['free', 'standard', 'pro', 'enterprise'].map((p) => [p, UNLIMITED])));

export const ROOT = resolve(__dirname, '..', '..');
const dist = (app: string) => join(ROOT, 'dist', 'apps', app, 'main.js');

/** The image's default V8 flags (the Dockerfile's `NODE_OPTIONS="..."`): the simulator's; each service runs with its own (`v8EnvOf`: its NODE_OPTIONS, V8_HEAP_GROWING_PERCENT and NODE_FLAGS). */
export const SERVICE_NODE_OPTIONS = /NODE_OPTIONS="([^"]*)"/.exec(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'))?.[1] ?? '';

export interface BenchStack {
  /** Every process by name; replicas as `<name>-2`. */
  procs: Map<string, Proc>;
  env: Record<string, string>;
  baseUrl: string;
  simUrl: string;
  natsUrl: string;
  dataDir: string;
  /** Starts (or starts again) a service; `extraEnv` adds to the stack's environment for this process. */
  startService(name: string, extraEnv?: Record<string, string>): Promise<Proc>;
  /** A second process of a service (dispatcher, edge) on ports of its own; for the edge, `url` is its base URL. */
  startReplica(name: string): Promise<{ proc: Proc; url: string }>;
  /** The Prometheus endpoint of a service's first process (its port picked at its start). */
  metricsUrl(name: string): string | undefined;
  /** Peak RSS (MB) by service over every process it has had so far (restarts and replicas included). */
  peakRss(): Map<string, number>;
  stop(): Promise<void>;
}

export interface StackOptions {
  /** The configuration's name: also the folder of its CPU profiles under .bench/profiles. */
  label: string;
  /** postgres://… : every service on this database (production); unset: PGlite under a temp DATA_DIR (embedded). */
  databaseUrl?: string;
  /** Extra environment of every service (e.g. tracing switches). */
  extraEnv?: Record<string, string>;
}

/** The gateway, every app its own process, as `npm start` runs it: on embedded PGlite, or on a PostgreSQL server. */
export async function bootStack(natsBin: string, opts: StackOptions): Promise<BenchStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  // ports are picked before their servers bind: the same free port must not be handed out twice
  const taken = new Set<number>();
  const freshPort = async () => {
    for (;;) {
      const p = await freePort();
      if (!taken.has(p)) return (taken.add(p), p);
    }
  };
  const procs = new Map<string, Proc>();
  const retired: [string, number][] = [];
  const stopAll = async () => {
    const order = ['edge', ...GRPC_SERVICES.map((s) => s.name).reverse()];
    for (const name of [...order.map((n) => `${n}-2`), ...order, 'provider-sim', 'nats-server']) await procs.get(name)?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  async function boot(): Promise<BenchStack> {
    const natsPort = await freshPort();
    mkdirSync(join(dataDir, 'nats'), { recursive: true });
    const natsConf = writeNatsServerConf(join(dataDir, 'nats'));
    procs.set(
      'nats-server',
      start('nats-server', natsBin, [...natsConf, '-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', join(dataDir, 'nats')], process.env),
    );
    await waitPort(natsPort, 'nats-server');
    const edgePort = await freshPort();
    const simPort = await freshPort();
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      DATA_DIR: dataDir,
      NATS_URL: `nats://127.0.0.1:${natsPort}`,
      GATEWAY_ADMIN_TOKEN: randomBytes(24).toString('base64url'),
      SECRETS_KEY: randomBytes(32).toString('base64'),
      PROVIDER_BASE_URL: `http://127.0.0.1:${simPort}`,
      PUBLIC_BASE_URL: `http://127.0.0.1:${edgePort}`,
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      // the bench measures throughput, not the plans' rate limits (docs/business.md): every plan unlimited
      PLANS: TEST_PLANS,
      GRPC_HOST: '127.0.0.1',
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      ...(opts.databaseUrl ? { DATABASE_URL: opts.databaseUrl } : {}),
      // production: the V8 flags of the deployments, per service below (BENCH_NODE_OPTIONS overrides, to try
      // others; the simulator gets the image's default); embedded: none, as `npm start` runs it
      NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? (opts.databaseUrl ? SERVICE_NODE_OPTIONS : ''),
      ...opts.extraEnv,
    };
    // BENCH_PROFILE=provider-sim (and the apps below) writes V8 CPU profiles to .bench/profiles/<label>
    const profileArgs = (app: string, procName: string) =>
      (process.env.BENCH_PROFILE ?? '').split(',').includes(app)
        ? ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, '.bench', 'profiles', opts.label)}`, `--cpu-prof-name=${procName}-${Date.now()}.cpuprofile`]
        : [];
    procs.set(
      'provider-sim',
      start('provider-sim', process.execPath, [...profileArgs('provider-sim', 'provider-sim'), dist('provider-sim')], {
        ...env,
        DATABASE_URL: undefined,
        PORT: String(simPort),
        SIM_AUTO_STATUSES: 'false',
        SIM_RATE_LIMITS: 'false',
        SIM_WINDOW: 'off',
        SIM_WEBHOOK_URL: `http://127.0.0.1:${edgePort}/webhooks/provider`,
      }),
    );
    await waitPort(simPort, 'provider-sim');
    for (const { addrVar } of GRPC_SERVICES) env[addrVar] = `127.0.0.1:${await freshPort()}`;
    const metricsPorts = new Map<string, number>();

    const spawnApp = async (
      procName: string,
      app: string,
      port: number,
      listenEnv: Record<string, string>,
      extraEnv: Record<string, string> = {},
    ): Promise<Proc> => {
      const previous = procs.get(procName);
      if (previous) retired.push([app, previous.peakRssMb]);
      // BENCH_V8_HEAP_GROWING_PERCENT overrides the catalogue's heap growing percentage the same way
      const v8Env = opts.databaseUrl ? v8EnvOf(app) : { NODE_OPTIONS: '', V8_HEAP_GROWING_PERCENT: '0', NODE_FLAGS: '' };
      // production: the service's node flags on its command line, as the image puts them (NODE_FLAGS); BENCH_NODE_ARGS
      // replaces them for every service, to try flags NODE_OPTIONS refuses
      const nodeArgs = (process.env.BENCH_NODE_ARGS ?? v8Env.NODE_FLAGS).split(' ').filter(Boolean);
      // BENCH_PROFILE=dispatcher,edge writes V8 CPU profiles of those processes to .bench/profiles/<label> (open in Chrome DevTools)
      const args = [...nodeArgs, ...profileArgs(app, procName), dist(app)];
      const v8 = {
        // BENCH_NODE_OPTIONS_EXTRA adds flags to each service's own (`--perf-basic-prof` for `perf record`)
        NODE_OPTIONS: `${process.env.BENCH_NODE_OPTIONS ?? v8Env.NODE_OPTIONS} ${process.env.BENCH_NODE_OPTIONS_EXTRA ?? ''}`.trim(),
        V8_HEAP_GROWING_PERCENT: process.env.BENCH_V8_HEAP_GROWING_PERCENT ?? v8Env.V8_HEAP_GROWING_PERCENT,
      };
      const p = start(procName, process.execPath, args, { ...env, ...v8, ...extraEnv, ...listenEnv });
      procs.set(procName, p);
      await waitPort(port, procName);
      return p;
    };
    const startService = async (name: string, extraEnv?: Record<string, string>): Promise<Proc> => {
      const addrVar = GRPC_SERVICES.find((s) => s.name === name)?.addrVar;
      const port = addrVar ? Number(env[addrVar].split(':')[1]) : edgePort;
      // every service serves its metrics anyway (METRICS_PORT 0 is a port of the system's choice): on a known one
      // the bench reads them (the campaign row's `campaign_yield_wait_seconds`)
      const metricsPort = await freshPort();
      metricsPorts.set(name, metricsPort);
      return spawnApp(name, name, port, { GRPC_PORT: String(port), PORT: String(edgePort), METRICS_PORT: String(metricsPort) }, extraEnv);
    };
    const startReplica = async (name: string) => {
      const port = await freshPort();
      const proc = await spawnApp(`${name}-2`, name, port, { GRPC_PORT: String(port), PORT: String(port) });
      return { proc, url: `http://127.0.0.1:${port}` };
    };
    for (const { name } of GRPC_SERVICES) await startService(name);
    await startService('edge');
    return {
      procs,
      env,
      baseUrl: `http://127.0.0.1:${edgePort}`,
      simUrl: `http://127.0.0.1:${simPort}`,
      natsUrl: env.NATS_URL,
      dataDir,
      startService,
      startReplica,
      metricsUrl: (name) => (metricsPorts.has(name) ? `http://127.0.0.1:${metricsPorts.get(name)}/metrics` : undefined),
      peakRss() {
        const peak = new Map<string, number>();
        const add = (name: string, mb: number) => peak.set(name, Math.max(peak.get(name) ?? 0, mb));
        for (const [name, p] of procs) add(name.replace(/-2$/, ''), p.peakRssMb);
        for (const [name, mb] of retired) add(name, mb);
        return peak;
      },
      stop: stopAll,
    };
  }

  // a process that does not start (a bad V8 flag, a port taken) fails the boot: what did start is stopped, not
  // left running beside the next run
  try {
    return await boot();
  } catch (e) {
    await stopAll();
    throw e;
  }
}
