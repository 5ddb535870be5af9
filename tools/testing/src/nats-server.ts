import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { natsServerConf } from '@gateway/config';
import { freePort, waitFor } from './ports';

export interface TestNatsServer {
  url: string;
  port: number;
  /** Stops the server; the store stays, so start() brings back every stream and message. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops and deletes the store. */
  dispose(): Promise<void>;
}

export function natsServerBinary(): string {
  return process.env.NATS_SERVER_BIN ?? 'nats-server';
}

/** Writes the gateway's nats-server configuration (max_payload) into `dir`: the `-c` argument to start one with. */
export function writeNatsServerConf(dir: string): string[] {
  const file = join(dir, 'gateway.conf');
  writeFileSync(file, natsServerConf());
  return ['-c', file];
}

/** A private nats-server with JetStream on a free port and a temporary store, so test runs never share state; configured as the gateway's. */
export async function startNatsServer(): Promise<TestNatsServer> {
  const port = await freePort();
  const storeDir = mkdtempSync(join(tmpdir(), 'gw-nats-'));
  const conf = writeNatsServerConf(storeDir);
  let proc: ChildProcess | undefined;

  const start = async () => {
    proc = spawn(natsServerBinary(), [...conf, '-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
    const p = proc;
    const exited = new Promise<never>((_, reject) => p.once('exit', (code) => reject(new Error(`nats-server exited with ${code}`))));
    exited.catch(() => undefined);
    p.once('error', () => undefined);
    await Promise.race([waitFor(() => canConnect(port), { timeoutMs: 15_000, what: `nats-server on ${port}` }), exited]);
  };
  const stop = async () => {
    const p = proc;
    proc = undefined;
    if (!p || p.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve());
      p.kill('SIGTERM');
      setTimeout(() => p.kill('SIGKILL'), 5000).unref();
    });
  };
  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    start,
    stop,
    async dispose() {
      await stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
