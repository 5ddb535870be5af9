import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { GRPC_SERVICES } from '@gateway/config';
import { freePort } from '@gateway/testing';
import { start, waitPort, type Proc } from './processes';

export const ROOT = resolve(__dirname, '..', '..');
const dist = (app: string) => join(ROOT, 'dist', 'apps', app, 'main.js');

export interface BenchStack {
  procs: Map<string, Proc>;
  env: Record<string, string>;
  baseUrl: string;
  simUrl: string;
  natsUrl: string;
  dataDir: string;
  startService(name: string): Promise<Proc>;
  stop(): Promise<void>;
}


/** The gateway on embedded defaults (PGlite under a temp DATA_DIR), every app its own process, as `npm start` runs it. */
export async function bootStack(natsBin: string): Promise<BenchStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  // ports are picked before their servers bind: the same free port must not be handed out twice
  const taken = new Set<number>();
  const freshPort = async () => {
    for (;;) {
      const p = await freePort();
      if (!taken.has(p)) return taken.add(p), p;
    }
  };
  const procs = new Map<string, Proc>();
  const natsPort = await freshPort();
  procs.set('nats-server', start('nats-server', natsBin, ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', join(dataDir, 'nats')], process.env));
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
    GRPC_HOST: '127.0.0.1',
    HOST: '127.0.0.1',
    METRICS_PORT: '0',
  };
  procs.set('provider-sim', start('provider-sim', process.execPath, [dist('provider-sim')], { ...env, PORT: String(simPort), SIM_AUTO_STATUSES: 'false', SIM_RATE_LIMITS: 'false', SIM_WINDOW: 'off', SIM_WEBHOOK_URL: `http://127.0.0.1:${edgePort}/webhooks/provider` }));
  await waitPort(simPort, 'provider-sim');
  for (const { addrVar } of GRPC_SERVICES) env[addrVar] = `127.0.0.1:${await freshPort()}`;

  const startService = async (name: string): Promise<Proc> => {
    const addrVar = GRPC_SERVICES.find((s) => s.name === name)?.addrVar;
    const port = addrVar ? Number(env[addrVar].split(':')[1]) : edgePort;
    // BENCH_PROFILE=dispatcher,edge writes V8 CPU profiles of those processes to .bench/profiles (open in Chrome DevTools)
    const profiled = (process.env.BENCH_PROFILE ?? '').split(',').includes(name);
    const args = profiled ? ['--cpu-prof', `--cpu-prof-dir=${join(ROOT, '.bench', 'profiles')}`, dist(name)] : [dist(name)];
    const p = start(name, process.execPath, args, { ...env, GRPC_PORT: String(port), PORT: String(edgePort) });
    procs.set(name, p);
    await waitPort(port, name);
    return p;
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
    async stop() {
      for (const name of ['edge', ...GRPC_SERVICES.map((s) => s.name).reverse(), 'provider-sim', 'nats-server']) await procs.get(name)?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
