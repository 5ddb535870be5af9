import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { natsServerBinary, writeNatsServerConf } from './nats-server';
import { freePort, waitFor } from './ports';

export interface ClusterNode {
  /** Server name (`n0`, `n1`, ...): what JetStream reports as a stream's leader or replica. */
  name: string;
  url: string;
  port: number;
  pid(): number | undefined;
  running(): boolean;
}

export interface TestNatsCluster {
  nodes: ClusterNode[];
  /** Every client URL, comma-separated: the form NATS_URL takes. */
  url: string;
  /** SIGKILL one server: no shutdown, its peers see it vanish. */
  kill(name: string): Promise<void>;
  /** Starts a stopped or killed server again on its ports and store. */
  start(name: string): Promise<void>;
  /** The server leading a stream's replicas (JetStream's view), undefined while there is none. */
  streamLeader(stream: string): Promise<string | undefined>;
  /** Stops every server and deletes the stores. */
  dispose(): Promise<void>;
}

/**
 * A JetStream cluster of `size` nats-server processes on loopback (free client and route ports, a store each),
 * for tests of replicated streams and node loss. Resolves once JetStream answers through every node.
 */
export async function startNatsCluster(size = 3): Promise<TestNatsCluster> {
  const root = mkdtempSync(join(tmpdir(), 'gw-nats-cluster-'));
  const ports: Array<{ client: number; route: number }> = [];
  const taken = new Set<number>();
  const fresh = async () => {
    for (;;) {
      const p = await freePort();
      if (!taken.has(p)) return (taken.add(p), p);
    }
  };
  for (let i = 0; i < size; i++) ports.push({ client: await fresh(), route: await fresh() });
  const routes = ports.map((p) => `nats://127.0.0.1:${p.route}`).join(',');
  const procs = new Map<string, ChildProcess>();

  const nodes: ClusterNode[] = ports.map((p, i) => ({
    name: `n${i}`,
    url: `nats://127.0.0.1:${p.client}`,
    port: p.client,
    pid: () => procs.get(`n${i}`)?.pid,
    running: () => procs.has(`n${i}`),
  }));

  const startNode = async (name: string) => {
    const i = nodes.findIndex((n) => n.name === name);
    if (i < 0) throw new Error(`no node ${name}`);
    if (procs.has(name)) return;
    const store = join(root, name);
    mkdirSync(store, { recursive: true });
    const args = [
      ...writeNatsServerConf(store),
      '-a',
      '127.0.0.1',
      '-p',
      String(ports[i].client),
      '-n',
      name,
      '-js',
      '-sd',
      store,
      '--cluster_name',
      'gw-test',
      '--cluster',
      `nats://127.0.0.1:${ports[i].route}`,
      '--routes',
      routes,
    ];
    // run inside the cluster's directory: whatever a server writes lands there, never in the repository
    const proc = spawn(natsServerBinary(), args, { stdio: 'ignore', cwd: root });
    procs.set(name, proc);
    proc.once('exit', () => procs.get(name) === proc && procs.delete(name));
    proc.once('error', () => undefined);
    await waitFor(() => procs.get(name) === proc && canConnect(ports[i].client), { timeoutMs: 15_000, what: `nats-server ${name}` });
  };

  const stopNode = async (name: string, signal: NodeJS.Signals) => {
    const proc = procs.get(name);
    if (!proc) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill(signal);
      setTimeout(() => proc.kill('SIGKILL'), 5000).unref();
    });
    procs.delete(name);
  };

  const withClient = async <T>(fn: (nc: Awaited<ReturnType<typeof connect>>) => Promise<T>): Promise<T> => {
    const nc = await connect({ servers: nodes.filter((n) => n.running()).map((n) => n.url), timeout: 2000 });
    try {
      return await fn(nc);
    } finally {
      await nc.close();
    }
  };

  try {
    await Promise.all(nodes.map((n) => startNode(n.name)));
    // JetStream answers once the meta group has a leader and every node sees it
    for (const n of nodes) {
      await waitFor(
        async () => {
          const nc = await connect({ servers: n.url, timeout: 2000 });
          try {
            await (await nc.jetstreamManager()).getAccountInfo();
            return true;
          } finally {
            await nc.close();
          }
        },
        { timeoutMs: 30_000, intervalMs: 250, what: `JetStream through ${n.name}` },
      );
    }
  } catch (e) {
    for (const n of nodes) await stopNode(n.name, 'SIGKILL');
    rmSync(root, { recursive: true, force: true });
    throw e;
  }

  return {
    nodes,
    url: nodes.map((n) => n.url).join(','),
    kill: (name) => stopNode(name, 'SIGKILL'),
    start: startNode,
    streamLeader: (stream) =>
      withClient(async (nc) => {
        try {
          return (await (await nc.jetstreamManager()).streams.info(stream)).cluster?.leader || undefined;
        } catch {
          return undefined;
        }
      }),
    async dispose() {
      for (const n of nodes) await stopNode(n.name, 'SIGTERM');
      rmSync(root, { recursive: true, force: true });
    },
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tcpConnect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}
