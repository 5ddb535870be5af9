import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { EDGE } from '@gateway/config';
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
  /** The process's exit code or signal once it has exited by itself (a crash), else null. */
  exited(): string | null;
}

/** Bundles an app's main.ts with the build script into a private directory (node_modules resolved from the repo). */
export async function bundleApp(name: string): Promise<string> {
  const outfile = resolve(ROOT, 'dist', '.test-bundles', `${name}-${process.pid}`, 'main.js');
  mkdirSync(dirname(outfile), { recursive: true });
  await new Promise<void>((ok, fail) => {
    const build = spawn(process.execPath, [resolve(ROOT, 'scripts', 'build-app.mjs'), name, outfile], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    build.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    build.once('exit', (code) => (code === 0 ? ok() : fail(new Error(`bundling ${name} failed: ${err}`))));
  });
  return outfile;
}

/**
 * Runs a service as its own OS process (its real main.ts, bundled), for tests that kill a process outright or
 * need one OpenTelemetry SDK per service. Resolves once the service answers grpc.health.v1 as SERVING (the edge:
 * once its /healthz on env.PORT answers 200).
 */
export async function spawnServiceProcess(name: string, env: Env, opts: { grpcPort?: number } = {}): Promise<ServiceProcess> {
  const outfile = await bundleApp(name);
  for (let attempt = 1; ; attempt++) {
    // a restarted process keeps its port, so clients of the first one reconnect to it
    const grpcPort = opts.grpcPort ?? (await freePort());
    const metricsPort = await freePort();
    try {
      return await startProcess(name, outfile, env, grpcPort, metricsPort);
    } catch (e) {
      // another process on the machine (a parallel test run) took a port this one picked between the pick and the
      // bind: pick again. A port the caller chose (a restart's, the edge's HTTP port) is the caller's to keep
      const taken = (e as { takenPort?: number }).takenPort;
      const ours = taken === metricsPort || (taken === grpcPort && opts.grpcPort === undefined);
      if (!ours || attempt >= 3) throw e;
    }
  }
}

/** The port a process could not listen on, from its last words (a Node or grpc-js bind error), if that is how it ended. */
export function takenPortOf(output: string[]): number | undefined {
  const inUse = /EADDRINUSE[^"\n]*?:(\d+)/.exec(output.slice(-20).join('\n'));
  return inUse ? Number(inUse[1]) : undefined;
}

async function startProcess(name: string, outfile: string, env: Env, grpcPort: number, metricsPort: number): Promise<ServiceProcess> {
  const output: string[] = [];
  const child: ChildProcess = spawn(process.execPath, [outfile], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      ...env,
      GRPC_PORT: String(grpcPort),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: env.LOG_LEVEL === 'silent' ? 'warn' : env.LOG_LEVEL,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (d: Buffer) => output.push(...d.toString('utf8').split('\n').filter(Boolean));
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exit = new Promise<void>((r) => child.once('exit', () => r()));
  // a process that dies before it serves fails the start at once, with its last lines ('close' follows the output),
  // where polling its health would wait the whole timeout out
  let closed = false;
  child.once('close', () => (closed = true));
  const probe = createServiceClient(health.Health, `127.0.0.1:${grpcPort}`, { defaultDeadlineMs: 1000 });
  const serving =
    name === EDGE.name
      ? async () => (await fetch(`http://127.0.0.1:${env.PORT}/healthz`, { signal: AbortSignal.timeout(1000) }).catch(() => undefined))?.status === 200
      : async () => (await probe.check({ service: '' })).status === health.HealthCheckResponse_ServingStatus.SERVING;
  try {
    await waitFor(async () => closed || serving(), { timeoutMs: 30_000, what: `${name} process serving` });
    if (closed) {
      const err = new Error(`${name} exited with ${child.exitCode ?? child.signalCode}: ${output.slice(-5).join('\n')}`);
      throw Object.assign(err, { takenPort: takenPortOf(output) });
    }
  } finally {
    probe.close();
  }

  const signal = async (sig: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(sig);
    await exit;
  };
  const exited = () => (child.exitCode !== null ? `code ${child.exitCode}` : child.signalCode !== null ? `signal ${child.signalCode}` : null);
  return { pid: child.pid!, grpcPort, metricsPort, output, kill: () => signal('SIGKILL'), stop: () => signal('SIGTERM'), exited };
}
