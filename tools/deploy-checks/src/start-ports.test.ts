import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { resolve } from 'node:path';
import { EDGE, GRPC_SERVICES } from '@gateway/config';
import { freePort, tempDir } from '@gateway/testing';

const ROOT = resolve(__dirname, '../../..');

/** `npm start`'s launcher with every port moved to a free one, so only the port a test holds is taken. */
async function startStackEnv(): Promise<Record<string, string>> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    DATA_DIR: tempDir('gw-start-').path,
    NATS_URL: `nats://127.0.0.1:${await freePort()}`,
    PROVIDER_BASE_URL: `http://127.0.0.1:${await freePort()}`,
    [EDGE.portVar]: String(await freePort()),
    EDGE_METRICS_PORT: String(await freePort()),
  };
  for (const s of GRPC_SERVICES) {
    env[s.addrVar] = `127.0.0.1:${await freePort()}`;
    env[`${s.name.toUpperCase().replaceAll('-', '_')}_METRICS_PORT`] = String(await freePort());
  }
  return env;
}

function run(env: Record<string, string>): Promise<{ status: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [resolve(ROOT, 'scripts', 'start-stack.mjs')], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (status) => done({ status, stderr }));
  });
}

function hold(port: number): Promise<Server> {
  return new Promise((r) => {
    const srv = createServer();
    srv.listen(port, '127.0.0.1', () => r(srv));
  });
}

describe('npm start: ports', () => {
  it.each([
    ['the edge HTTP port', (env: Record<string, string>) => ({ port: Number(env.PORT), line: 'edge HTTP', variable: 'PORT' })],
    [
      'a service gRPC port',
      (env: Record<string, string>) => ({ port: Number(env.MESSAGING_ADDR.split(':')[1]), line: 'messaging gRPC', variable: 'MESSAGING_ADDR' }),
    ],
    [
      'a metrics port',
      (env: Record<string, string>) => ({ port: Number(env.DISPATCHER_METRICS_PORT), line: 'dispatcher metrics', variable: 'DISPATCHER_METRICS_PORT' }),
    ],
  ])('stops before starting anything when %s is taken, naming the port and the variable that moves it', async (_case, pick) => {
    const env = await startStackEnv();
    const { port, line, variable } = pick(env);
    const held = await hold(port);
    try {
      const { status, stderr } = await run(env);
      expect(status).toBe(1);
      expect(stderr).toContain(`[start] port ${port} (${line}) is already in use, perhaps by another gateway; set ${variable} to move it\n`);
      expect(stderr).not.toMatch(/^\[(nats-server|provider-sim|edge|messaging)\]/m);
    } finally {
      held.close();
    }
  });
});
