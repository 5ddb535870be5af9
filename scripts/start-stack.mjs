// Runs the whole gateway on this machine: nats-server (JetStream, local store), the provider simulator,
// every service as its own process, and the edge. Prints the base URL, the admin token and an API key.
// Environment variables of docs/configuration (decisions.md) override every default; with PROVIDER_BASE_URL
// set, no simulator is started; with NATS_URL set, no nats-server is started. Ctrl-C stops everything.
// Names, default ports and the variables that move them come from the service catalogue
// (libs/config/src/services.json). Every port is checked before anything starts: a port another process holds
// (another stack, say) stops the start with a line naming the port and the variable that moves it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { resolve, join } from 'node:path';

/** @typedef {{ name: string, port: number, portVar: string, metricsPort: number }} HttpEntry */
/** @typedef {{ name: string, port: number, portVar: string, maxPayload: number }} NatsEntry */
/** @typedef {{ name: string, grpcPort: number, addrVar: string, metricsPort: number }} GrpcEntry */
/** @typedef {{ edge: HttpEntry, grpc: GrpcEntry[], providerSim: HttpEntry, nats: NatsEntry }} Catalogue */

const root = resolve(import.meta.dirname, '..');
const env = { ...process.env };
const dataDir = resolve(root, env.DATA_DIR ?? '.data');
mkdirSync(dataDir, { recursive: true });
env.DATA_DIR = dataDir;

/** @param {string} name @param {() => string} make */
const remembered = (name, make) => {
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const value = make();
  writeFileSync(file, value + '\n', { mode: 0o600 });
  return value;
};

/** @type {Catalogue} */
const catalogue = JSON.parse(readFileSync(join(root, 'libs', 'config', 'src', 'services.json'), 'utf8'));
const { edge: EDGE, grpc: GRPC_SERVICES, providerSim: SIM, nats: NATS } = catalogue;
/** The variable that moves an app's metrics port under `npm start` (each process reads it as METRICS_PORT). */
const metricsVar = (/** @type {string} */ name) => `${name.toUpperCase().replaceAll('-', '_')}_METRICS_PORT`;

env[EDGE.portVar] ??= String(EDGE.port);
env.PORT = env[EDGE.portVar];
env.PUBLIC_BASE_URL ??= `http://localhost:${env.PORT}`;
env.GATEWAY_ADMIN_TOKEN ??= remembered('admin-token', () => `adm_${randomBytes(24).toString('base64url')}`);
env.SECRETS_KEY ??= remembered('secrets.key', () => randomBytes(32).toString('base64'));
env.WEBHOOK_ALLOW_PRIVATE_TARGETS ??= 'true'; // local development: receivers usually run on this machine
env.LOG_LEVEL ??= 'info';

/** @type {Array<{ name: string, child: import('node:child_process').ChildProcess }>} */
const children = [];
let stopping = false;

/** @param {string} name @param {string} cmd @param {string[]} args @param {Record<string, string>} [extraEnv] */
function run(name, cmd, args, extraEnv = {}) {
  const child = spawn(cmd, args, { cwd: root, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = `[${name}]`.padEnd(20);
  /** @param {import('node:stream').Readable} stream @param {NodeJS.WriteStream} out */
  const pipe = (stream, out) => {
    let buf = '';
    stream.on('data', (/** @type {Buffer} */ d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        if (env.START_QUIET !== 'true') out.write(`${prefix}${line}\n`);
      }
    });
  };
  pipe(child.stdout, process.stdout);
  pipe(child.stderr, process.stderr);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${prefix}exited (${signal ?? code}); stopping everything`);
      shutdown(1);
    }
  });
  children.push({ name, child });
  return child;
}

/** @param {string | undefined} port @param {string} what */
const waitPort = async (port, what, timeoutMs = 30_000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise((r) => {
      const s = connect(Number(port), '127.0.0.1');
      s.once('connect', () => (s.destroy(), r(true)));
      s.once('error', () => r(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not start on port ${port}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

/** @param {string | number} port @returns {Promise<boolean>} */
function portFree(port, host = '127.0.0.1') {
  return new Promise((r) => {
    const srv = createServer();
    srv.once('error', () => r(false));
    srv.listen(Number(port), host, () => srv.close(() => r(true)));
  });
}

/** Every port `npm start` is about to bind, with the variable that moves it; the first one taken stops the start. */
/** @param {Array<{ port: string | number | undefined, what: string, variable: string }>} ports */
async function checkPorts(ports) {
  for (const { port, what, variable } of ports) {
    if (!(await portFree(port ?? '', '0.0.0.0'))) {
      throw new Error(`port ${port} (${what}) is already in use, perhaps by another gateway; set ${variable} to move it`);
    }
  }
}

/** @returns {Promise<number>} */
function freePort() {
  return new Promise((r) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (srv.address());
      srv.close(() => r(port));
    });
  });
}

async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  console.error('\nstopping…');
  // edge first, nats last: the reverse of the start order
  for (const { child } of [...children].reverse()) {
    if (child.exitCode !== null) continue;
    await new Promise((r) => {
      child.once('exit', r);
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
    });
  }
  process.exit(code);
}
process.on('SIGINT', () => shutdown(0));
process.on('SIGTERM', () => shutdown(0));

const app = (/** @type {string} */ name) => join(root, 'dist', 'apps', name, 'main.js');
for (const { grpcPort, addrVar } of GRPC_SERVICES) env[addrVar] ??= `127.0.0.1:${grpcPort}`;
for (const { name, metricsPort } of [EDGE, ...GRPC_SERVICES]) env[metricsVar(name)] ??= String(metricsPort);
const simulated = !env.PROVIDER_BASE_URL;

try {
  await checkPorts([
    ...(simulated ? [{ port: env[SIM.portVar] ?? SIM.port, what: 'provider simulator', variable: SIM.portVar }] : []),
    ...GRPC_SERVICES.map(({ name, addrVar }) => ({ port: env[addrVar]?.split(':').pop(), what: `${name} gRPC`, variable: addrVar })),
    ...[EDGE, ...GRPC_SERVICES].map(({ name }) => ({ port: env[metricsVar(name)], what: `${name} metrics`, variable: metricsVar(name) })),
    { port: env.PORT, what: 'edge HTTP', variable: EDGE.portVar },
  ]);
  const services = GRPC_SERVICES.filter(({ name }) => {
    if (existsSync(app(name))) return true;
    console.error(`[start] ${name} is not built yet; skipping`);
    return false;
  });
  if (!env.NATS_URL) {
    // the default port unless taken (e.g. a system nats-server): then any free port; a port asked for must be free
    if (env[NATS.portVar]) await checkPorts([{ port: env[NATS.portVar], what: 'nats-server', variable: NATS.portVar }]);
    const natsPort = env[NATS.portVar] ?? ((await portFree(NATS.port)) ? String(NATS.port) : String(await freePort()));
    const natsDir = join(dataDir, 'nats');
    mkdirSync(natsDir, { recursive: true });
    // max_payload (NATS of the catalogue): provider webhooks of up to 3 MB travel the bus
    writeFileSync(join(natsDir, 'gateway.conf'), `max_payload: ${NATS.maxPayload}\n`);
    run('nats-server', env.NATS_SERVER_BIN ?? 'nats-server', ['-c', join(natsDir, 'gateway.conf'), '-a', '127.0.0.1', '-p', natsPort, '-js', '-sd', natsDir]);
    await waitPort(natsPort, 'nats-server');
    env.NATS_URL = `nats://127.0.0.1:${natsPort}`;
  }
  if (simulated) {
    const simPort = env[SIM.portVar] ?? String(SIM.port);
    run('provider-sim', 'node', [app('provider-sim')], { PORT: simPort, SIM_WEBHOOK_URL: `http://127.0.0.1:${env.PORT}/webhooks/provider` });
    await waitPort(simPort, 'provider simulator');
    env.PROVIDER_BASE_URL = `http://127.0.0.1:${simPort}`;
    // the simulator's media URLs are on http://localhost:<port>, like the provider's own media host apart from its Graph API
    env.PROVIDER_MEDIA_HOSTS ??= `http://localhost:${simPort}`;
  }
  // the first start on embedded PGlite: one service makes DATA_DIR's database template (initdb: about 4 s and
  // 800 MB at its peak, libs/store/src/pglite-template.ts) and serves once it has; the others start then and copy
  // it. Started together, each ran an initdb of its own (five at once: 4 GB)
  const templated = env.DATABASE_URL || existsSync(join(dataDir, '.pglite-template', 'PG_VERSION'));
  for (const [i, { name, addrVar }] of services.entries()) {
    const port = String(env[addrVar]?.split(':').pop());
    run(name, 'node', [app(name)], { GRPC_PORT: port, METRICS_PORT: String(env[metricsVar(name)]) });
    if (i === 0 && !templated) await waitPort(port, `${name} (making the embedded database's template)`, 180_000);
  }
  run('edge', 'node', [app('edge')], { METRICS_PORT: String(env[metricsVar(EDGE.name)]) });
  await waitPort(env.PORT, 'edge');
  const base = `http://127.0.0.1:${env.PORT}`;
  // ready = every backing service answers its health check
  const deadline = Date.now() + 60_000;
  let ready;
  for (;;) {
    ready = await fetch(`${base}/readyz`)
      .then((r) => r.json())
      .catch(() => undefined);
    if (ready?.status === 'ready' || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const apiKey = await demoApiKey(base);
  const url = env.PUBLIC_BASE_URL;
  console.log(`
  Messaging gateway is ${ready?.status === 'ready' ? 'ready' : `up (not ready: ${JSON.stringify(ready?.checks ?? {})})`}

    Base URL      ${url}
    Dashboard     ${url}/dashboard/   (sign in with the API key)
    Admin token   ${env.GATEWAY_ADMIN_TOKEN}
    API key       ${apiKey}   (tenant "Demo tenant")
    Provider      ${env.PROVIDER_BASE_URL}${simulated ? ' (simulator)' : ''}
    NATS          ${env.NATS_URL}
    Data          ${dataDir}

    Try:  curl -s -H "Authorization: Bearer ${apiKey}" ${url}/api/clients

  Ctrl-C stops everything.
`);
} catch (e) {
  console.error(`[start] ${e instanceof Error ? e.message : e}`);
  await shutdown(1);
}

// A demo tenant's key, kept in DATA_DIR so restarts print the same one.
/** @param {string} base @returns {Promise<string>} */
async function demoApiKey(base) {
  const file = join(dataDir, 'demo-api-key');
  if (existsSync(file)) {
    const key = readFileSync(file, 'utf8').trim();
    const res = await fetch(`${base}/api/clients`, { headers: { authorization: `Bearer ${key}` } });
    if (res.status === 200) return key;
  }
  const res = await fetch(`${base}/admin/tenants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${env.GATEWAY_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Demo tenant', email: 'demo@example.test' }),
  });
  if (res.status !== 201) throw new Error(`could not create the demo tenant: ${res.status} ${await res.text()}`);
  const { api_key } = await res.json();
  writeFileSync(file, api_key + '\n', { mode: 0o600 });
  return api_key;
}
