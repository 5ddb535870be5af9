import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createLogger, type Logger } from '@gateway/logger';
import { closedAddress, dbTarget, freePort, SimControl, startNatsServer, tempDir, type DbTarget, type TestNatsServer } from '@gateway/testing';
import { SERVICES, startOrder, type Env, type StartedService } from './services';
import { ApiClient } from './api-client';
import { spawnServiceProcess, type ServiceProcess } from './process-service';
import { seedPgliteTemplate } from '@gateway/store/testing';

export interface StackOptions {
  /** Services to start (default: every registered service), in this process unless named in `processes`. */
  services?: string[];
  /**
   * Of those, the ones run as OS processes: their real main.ts, bundled (`spawnServiceProcess`), e.g. so each has
   * its own OpenTelemetry SDK. Their log lines are in `stack.processes.get(name).output`.
   */
  processes?: string[];
  /** Start the provider simulator and point PROVIDER_BASE_URL at it (default true). */
  sim?: boolean;
  /** Extra or overriding environment for every service. */
  env?: Env;
  /** Force a storage backend; default: PostgreSQL when `npm test` provides one, else PGlite. */
  storage?: 'pglite' | 'postgres';
  /** Reuse storage and bus of an earlier stack (restart tests). */
  reuse?: { db: DbTarget; nats: TestNatsServer; dataDir: string; secretsKey?: string };
  logLevel?: string;
}

export interface SimHandle {
  url: string;
  stop(): Promise<void>;
  [k: string]: unknown;
}

export const ADMIN_TOKEN_LENGTH = 32;

/**
 * The stack's plan catalogue (PLANS): the default plans' names with limits no test of another area reaches (a
 * fuzz run makes hundreds of requests a second). Tests of the limits themselves set their own PLANS.
 */
const UNLIMITED = { max_clients: 10_000, sends_per_day: 10_000_000, sends_per_second: 100_000, campaigns_per_day: 100_000, requests_per_second: 100_000 };
export const TEST_PLANS = JSON.stringify(Object.fromEntries(['free', 'standard', 'pro', 'enterprise'].map((p) => [p, UNLIMITED])));

/**
 * A whole gateway for integration tests: a private nats-server, its own database, the provider simulator,
 * and the chosen services started in-process with the same config readers as their main.ts. Everything
 * talks over real HTTP, gRPC and JetStream.
 */
export class Stack {
  readonly running = new Map<string, StartedService>();
  /** The services running as OS processes (StackOptions.processes). */
  readonly processes = new Map<string, ServiceProcess>();
  private processNames = new Set<string>();
  sim?: SimHandle;
  env: Env = {};
  private ownsStorage = true;

  private constructor(
    readonly nats: TestNatsServer,
    readonly db: DbTarget,
    readonly dataDir: string,
    readonly adminToken: string,
    readonly logger: Logger,
  ) {}

  static async start(opts: StackOptions = {}): Promise<Stack> {
    const logger = createLogger({ name: 'stack', level: opts.logLevel ?? process.env.STACK_LOG_LEVEL ?? 'silent' });
    const nats = opts.reuse?.nats ?? (await startNatsServer());
    const db = opts.reuse?.db ?? (await dbTarget(opts.storage));
    const dataDir = opts.reuse?.dataDir ?? tempDir('gw-stack-').path;
    // the services' DATA_DIR (below), not the storage target's directory
    if (!opts.reuse && !db.databaseUrl) seedPgliteTemplate(dataDir);
    const stack = new Stack(nats, db, dataDir, randomBytes(24).toString('base64url'), logger);
    if (opts.reuse) stack.ownsStorage = false;
    try {
      await stack.boot(opts);
    } catch (e) {
      await stack.stop();
      throw e;
    }
    return stack;
  }

  private async boot(opts: StackOptions): Promise<void> {
    this.processNames = new Set(opts.processes ?? []);
    // the edge's port is fixed up front so every service knows the public base URL (embed_signup_url)
    const edgePort = await freePort();
    this.env = {
      LOG_LEVEL: this.logger.level,
      NATS_URL: this.nats.url,
      DATABASE_URL: this.db.databaseUrl,
      DATA_DIR: this.dataDir,
      GATEWAY_ADMIN_TOKEN: this.adminToken,
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: '0',
      HOST: '127.0.0.1',
      PORT: String(edgePort),
      PUBLIC_BASE_URL: `http://127.0.0.1:${edgePort}`,
      METRICS_PORT: '0',
      SECRETS_KEY: opts.reuse?.secretsKey ?? randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      PROVIDER_APP_ID: 'sim-app-id',
      PROVIDER_APP_SECRET: 'sim-app-secret',
      PROVIDER_VERIFY_TOKEN: 'sim-verify-token',
      PROVIDER_CONFIG_ID: 'sim-config-id',
      PLANS: TEST_PLANS,
      ...opts.env,
    };
    // nothing of this stack may reach another stack on the machine: a service it does not start, and the provider
    // when there is no simulator, get an address where nothing listens instead of their `npm start` defaults
    for (const [name, entry] of Object.entries(SERVICES)) {
      if (entry.addrVar && !(opts.services ?? Object.keys(SERVICES)).includes(name)) this.env[entry.addrVar] ??= await closedAddress();
    }
    if (opts.sim === false) this.env.PROVIDER_BASE_URL ??= `http://${await closedAddress()}`;
    if (opts.sim !== false) {
      const { startProviderSim } = await import('@gateway/app-provider-sim');
      const sim = await startProviderSim({
        port: 0,
        appId: this.env.PROVIDER_APP_ID!,
        appSecret: this.env.PROVIDER_APP_SECRET!,
        verifyToken: this.env.PROVIDER_VERIFY_TOKEN!,
        configId: this.env.PROVIDER_CONFIG_ID!,
        logger: this.logger,
      });
      this.sim = sim as unknown as SimHandle;
      this.env.PROVIDER_BASE_URL ??= sim.url;
      // the simulator's media URLs are on another name than its Graph API (as the provider's media host is)
      this.env.PROVIDER_MEDIA_HOSTS ??= sim.mediaBaseUrl;
    }
    for (const name of startOrder(opts.services ?? Object.keys(SERVICES))) await this.startService(name);
    const edge = this.running.get('edge');
    if (edge?.port) {
      // the simulator's signed inbound webhooks go to the edge
      if (this.sim) {
        await new SimControl(this.sim.url).setWebhook(`${this.baseUrl}/webhooks/provider`);
      }
    }
  }

  /** Starts (or restarts) one service with the stack's env; its address is published for later ones. */
  async startService(name: string, extraEnv: Env = {}): Promise<StartedService> {
    const entry = SERVICES[name];
    if (!entry) throw new Error(`unknown service ${name}`);
    let svc: StartedService;
    if (this.processNames.has(name)) {
      const env = { ...this.env, ...extraEnv };
      const proc = await spawnServiceProcess(name, env);
      this.processes.set(name, proc);
      svc = {
        grpcPort: name === 'edge' ? undefined : proc.grpcPort,
        port: name === 'edge' ? Number(env.PORT) : undefined,
        metricsPort: proc.metricsPort,
        stop: () => proc.stop(),
      };
    } else {
      svc = await entry.start({ ...this.env, ...extraEnv }, this.logger.child({ svc: name }));
    }
    this.running.set(name, svc);
    if (entry.addrVar && svc.grpcPort) this.env[entry.addrVar] = `127.0.0.1:${svc.grpcPort}`;
    return svc;
  }

  async stopService(name: string): Promise<void> {
    const svc = this.running.get(name);
    this.running.delete(name);
    this.processes.delete(name);
    await svc?.stop();
  }

  get baseUrl(): string {
    const edge = this.running.get('edge');
    if (!edge?.port) throw new Error('the edge is not running in this stack');
    return `http://127.0.0.1:${edge.port}`;
  }

  /** HTTP client for the edge with the given bearer token. */
  api(token?: string): ApiClient {
    return new ApiClient(this.baseUrl, token);
  }

  admin(): ApiClient {
    return this.api(this.adminToken);
  }

  /** Creates a tenant through the admin API; returns the tenant record and an API client holding its key. */
  async createTenant(overrides: Record<string, unknown> = {}) {
    const res = await this.admin().post('/admin/tenants', { name: 'Acme', email: 'ops@acme.test', ...overrides });
    if (res.status !== 201) throw new Error(`createTenant failed: ${res.status} ${res.text}`);
    const body = res.json as { tenant: Record<string, unknown> & { id: string; webhook_secret: string }; api_key: string };
    return { tenant: body.tenant, apiKey: body.api_key, api: this.api(body.api_key) };
  }

  /** Stops services (edge first), the simulator, and — unless reused — the bus and the database. */
  async stop(opts: { keepStorage?: boolean } = {}): Promise<void> {
    const names = [...this.running.keys()].reverse();
    for (const n of names) await this.stopService(n).catch(() => undefined);
    await this.sim?.stop().catch(() => undefined);
    if (this.ownsStorage && !opts.keepStorage) {
      await this.nats.dispose().catch(() => undefined);
      await this.db.cleanup().catch(() => undefined);
      rmSync(this.dataDir, { recursive: true, force: true });
    }
  }
}

export const startStack = (opts?: StackOptions) => Stack.start(opts);
