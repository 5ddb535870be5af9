import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { health } from '@gateway/contracts';
import { createServiceClient } from '@gateway/rpc';
import { freePort, waitFor } from '@gateway/testing';
import type { Env } from './services';

const ROOT = resolve(__dirname, '../../..');

export interface ServiceProcess {
  pid: number;
  grpcPort: number;
  metricsPort: number;
  /** The lines the process wrote (JSON logs), for assertions and failure messages. */
  output: string[];
  /** SIGKILL: no graceful shutdown, in-flight work is abandoned mid-way. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the graceful shutdown. */
  stop(): Promise<void>;
}

/** Bundles an app's main.ts with esbuild into a private directory (node_modules resolved from the repo). */
export async function bundleApp(name: string): Promise<string> {
  const { build } = await import('esbuild');
  const outdir = resolve(ROOT, 'dist', '.test-bundles', `${name}-${process.pid}`);
  mkdirSync(outdir, { recursive: true });
  const outfile = resolve(outdir, 'main.js');
  await build({
    entryPoints: [resolve(ROOT, 'apps', name, 'src', 'main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    tsconfig: resolve(ROOT, 'tsconfig.base.json'),
    logLevel: 'error',
  });
  return outfile;
}

/**
 * Runs a service as its own OS process (its real main.ts, bundled), for tests that kill a process outright.
 * Resolves once the service answers grpc.health.v1 as SERVING.
 */
export async function spawnServiceProcess(name: string, env: Env, opts: { grpcPort?: number } = {}): Promise<ServiceProcess> {
  const outfile = await bundleApp(name);
  // a restarted process keeps its port, so clients of the first one reconnect to it
  const grpcPort = opts.grpcPort ?? (await freePort());
  const metricsPort = await freePort();
  const output: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [outfile], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env, GRPC_PORT: String(grpcPort), METRICS_PORT: String(metricsPort), LOG_LEVEL: env.LOG_LEVEL === 'silent' ? 'warn' : env.LOG_LEVEL },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (d: Buffer) => output.push(...d.toString('utf8').split('\n').filter(Boolean));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));

  const probe = createServiceClient(health.Health, `127.0.0.1:${grpcPort}`, { defaultDeadlineMs: 1000 });
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${output.slice(-5).join('\n')}`);
        const r = await probe.check({ service: '' });
        return r.status === health.HealthCheckResponse_ServingStatus.SERVING;
      },
      { timeoutMs: 30_000, what: `${name} process serving` },
    );
  } finally {
    probe.close();
  }

  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(sig);
    await exited;
  };
  return { pid: child.pid!, grpcPort, metricsPort, output, kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM') };
}
