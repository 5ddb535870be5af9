import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import { AppError } from '@gateway/errors';
import { health, tenantDirectory } from '@gateway/contracts';
import { waitFor } from '@gateway/testing';
import { createServiceClient } from './index';
import { retryableMethods } from './balancing';

const ROOT = resolve(__dirname, '../../..');

interface Replica {
  name: string;
  address: string;
  child: ChildProcess;
  kill(): Promise<void>;
}

/** Runs fixtures/replica-server.ts as its own process on `host`, so it can be SIGKILLed; its writes take `createMs`. */
async function startReplica(bundle: string, host: string, name: string, createMs = 1000): Promise<Replica> {
  const child = spawn(process.execPath, [bundle, host, name, String(createMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((ok, fail) => {
    child.once('exit', (code) => fail(new Error(`${name} exited with ${code}`)));
    child.stdout!.once('data', (d: Buffer) => ok((JSON.parse(d.toString('utf8').split('\n')[0]) as { port: number }).port));
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    name,
    address: `${host}:${port}`,
    child,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * waitForReady resolves once the channel has one connected backend; round_robin only picks connected ones, so
 * under load the other replica can join a moment later. Measuring starts once every replica has answered.
 */
async function untilEachAnswers(client: ReturnType<typeof createServiceClient<typeof tenantDirectory.TenantDirectoryService>>, names: string[]): Promise<void> {
  const seen = new Set<string>();
  const deadline = Date.now() + 15_000;
  while (names.some((n) => !seen.has(n))) {
    if (Date.now() > deadline) throw new Error(`only ${[...seen].join(', ')} of ${names.join(', ')} answered within 15 s`);
    seen.add((await client.getTenant({ tenantId: 't' })).tenant!.name);
  }
}

describe('one client over several replicas (round_robin)', () => {
  let dir: string;
  let bundle: string;
  const replicas: Replica[] = [];

  beforeAll(async () => {
    // inside the repository, so the bundle resolves node_modules
    mkdirSync(join(ROOT, 'dist', '.test-bundles'), { recursive: true });
    dir = mkdtempSync(join(ROOT, 'dist', '.test-bundles', 'rpc-replicas-'));
    bundle = join(dir, 'replica.js');
    await build({
      entryPoints: [join(__dirname, 'fixtures/replica-server.ts')],
      outfile: bundle,
      bundle: true,
      platform: 'node',
      target: 'node20',
      packages: 'external',
      tsconfig: join(ROOT, 'tsconfig.base.json'),
      logLevel: 'warning',
    });
    // two loopback addresses: the target names two distinct backends, as a headless Service's pod IPs do
    replicas.push(await startReplica(bundle, '127.0.0.1', 'a'), await startReplica(bundle, '127.0.0.2', 'b'));
  });
  afterAll(async () => {
    for (const r of replicas) await r.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  const target = () => `ipv4:${replicas.map((r) => r.address).join(',')}`;

  it('declares reads and health checks retryable, and never a write', () => {
    const reads = retryableMethods(tenantDirectory.TenantDirectoryService);
    expect(reads).toEqual(expect.arrayContaining(['GetTenant', 'AuthenticateApiKey', 'GetDeliveryTarget', 'FindClientsByPhoneNumberId']));
    expect(reads).not.toEqual(expect.arrayContaining(['CreateTenant']));
    expect(reads.filter((m) => /^(Create|Update|Revoke|Register|Set|Complete)/.test(m))).toEqual([]);
    expect(retryableMethods(health.Health)).toEqual(['Check', 'List']);
  });

  it('spreads 1,000 calls over both replicas within 60/40, and reads keep succeeding when one is killed mid-way', async () => {
    const client = createServiceClient(tenantDirectory.TenantDirectoryService, target(), { defaultDeadlineMs: 5000 });
    const probe = createServiceClient(health.Health, target(), { defaultDeadlineMs: 5000 });
    try {
      await client.waitForReady(10_000);
      await untilEachAnswers(client, ['a', 'b']);
      const byReplica = new Map<string, number>();
      const calls = async (n: number, concurrency: number, withHealth: boolean, after?: (done: number) => void) => {
        let next = 0;
        let done = 0;
        const failures: unknown[] = [];
        await Promise.all(
          Array.from({ length: concurrency }, async () => {
            while (next < n) {
              next += 1;
              try {
                const [res, h] = await Promise.all([client.getTenant({ tenantId: 't' }), withHealth ? probe.check({ service: '' }) : undefined]);
                if (h && h.status !== health.HealthCheckResponse_ServingStatus.SERVING) throw new Error(`health: ${h.status}`);
                byReplica.set(res.tenant!.name, (byReplica.get(res.tenant!.name) ?? 0) + 1);
              } catch (e) {
                failures.push(e);
              }
              done += 1;
              after?.(done);
            }
          }),
        );
        return failures;
      };

      expect(await calls(1000, 8, false)).toEqual([]);
      const a = byReplica.get('a') ?? 0;
      const b = byReplica.get('b') ?? 0;
      expect(a + b).toBe(1000);
      expect(Math.min(a, b)).toBeGreaterThanOrEqual(400);

      // reads and health checks again; replica b is SIGKILLed after 100 of 400: every one still succeeds
      byReplica.clear();
      let killed: Promise<void> | undefined;
      const failures = await calls(400, 8, true, (done) => {
        if (done === 100) killed = replicas[1].kill();
      });
      await killed;
      expect(failures).toEqual([]);
      expect((byReplica.get('a') ?? 0) + (byReplica.get('b') ?? 0)).toBe(400);
      expect(byReplica.get('b') ?? 0).toBeGreaterThan(0);
      expect(byReplica.get('b') ?? 0).toBeLessThan(200);
      // after the kill, replica a alone answers
      byReplica.clear();
      expect(await calls(50, 4, true)).toEqual([]);
      expect([...byReplica.keys()]).toEqual(['a']);
    } finally {
      client.close();
      probe.close();
    }
  }, 60_000);

  it('never repeats a write on another replica when its replica dies mid-call', async () => {
    // c's writes outlast the test: whatever share of them it got is still in flight when it is killed
    replicas.push(await startReplica(bundle, '127.0.0.3', 'c', 120_000));
    const live = replicas.filter((r) => r.child.exitCode === null && r.child.signalCode === null);
    expect(live.map((r) => r.name)).toEqual(['a', 'c']);
    const client = createServiceClient(tenantDirectory.TenantDirectoryService, `ipv4:${live.map((r) => r.address).join(',')}`, { defaultDeadlineMs: 20_000 });
    try {
      await client.waitForReady(10_000);
      await untilEachAnswers(client, ['a', 'c']);
      const createsOn = async (address: string) => {
        const c = createServiceClient(tenantDirectory.TenantDirectoryService, address);
        const n = Number((await c.getTenant({ tenantId: 'stats' })).tenant!.name);
        c.close();
        return n;
      };
      const before = await createsOn(live[0].address);
      // ten writes spread over both replicas (1 s each on a, never finishing on c); c dies once every one of them
      // has reached a replica, so its share is in flight
      const writes = Array.from({ length: 10 }, (_, i) =>
        client.createTenant({ name: `w${i}`, email: 'w@x.test' }).then(
          () => 'ok',
          (e: AppError) => e,
        ),
      );
      await waitFor(async () => (await createsOn(live[0].address)) - before + (await createsOn(live[1].address)) === 10, {
        timeoutMs: 15_000,
        what: 'all ten writes reached a replica',
      });
      await live[1].kill();
      const outcomes = await Promise.all(writes);
      const ok = outcomes.filter((o) => o === 'ok').length;
      const failed = outcomes.filter((o): o is AppError => o !== 'ok');
      expect(failed.length).toBeGreaterThan(0);
      expect(failed.map((e) => e.kind)).toEqual(failed.map(() => 'unavailable'));
      // every success was served by a, and a saw no write beyond those: the failed ones were not re-sent
      expect((await createsOn(live[0].address)) - before).toBe(ok);
    } finally {
      client.close();
    }
  }, 30_000);
});
