import { connectBus, STREAMS } from '@gateway/bus';
import { tenantDirectory as td } from '@gateway/contracts';
import { resolveSecretsKey, SecretBox } from '@gateway/crypto';
import type { Logger } from '@gateway/logger';
import { startOutboxRelay } from '@gateway/outbox';
import { defineService, defineTenantDataService, startGrpcServer } from '@gateway/rpc';
import { Metrics, startMetricsServer, type RunningProcess } from '@gateway/runtime';
import { eraseRowsMentioning, openDb } from '@gateway/store';
import { Clients } from './clients';
import type { TenantDirectoryConfig } from './config';
import { migrations } from './store/migrations';
import { SqlDirectoryRepository } from './store/repository';
import { Sessions } from './sessions';
import { SqlSessionRepository } from './store/sessions';
import { Tenants } from './tenants';
import { Quotas } from './business/quotas';
import { defineBusinessService } from './business/service';
import { TenantAdmin } from './business/tenant-admin';
import { AuditLog } from './business/audit';

export interface RunningTenantDirectory extends RunningProcess {
  grpcPort: number;
  metricsPort: number;
}

export async function startTenantDirectory(config: TenantDirectoryConfig, logger: Logger): Promise<RunningTenantDirectory> {
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    preparedStatements: config.databasePreparedStatements,
    dataDir: config.dataDir,
    schema: 'tenant_directory',
    migrations,
  });
  const bus = await connectBus({
    url: config.natsUrl,
    name: 'tenant-directory',
    logger,
    streams: [STREAMS.events, STREAMS.directoryChanges],
    replicas: config.jetstreamReplicas,
  });
  const relay = startOutboxRelay({ db, bus, logger });
  const box = SecretBox.fromBase64(resolveSecretsKey(config.secretsKey, config.dataDir));
  const repo = SqlDirectoryRepository.open(db);
  // a change is answered once its notice is on the bus, so caches elsewhere have dropped it by the next request
  const published = () => relay.flush(config.noticeWaitMs);
  const tenants = new Tenants(repo, box, { secretOverlapMs: config.webhookSecretOverlapMs, published, plans: config.plans });
  const quotas = new Quotas(db, config.plans);
  const clients = new Clients(repo, box, config.publicBaseUrl, published, (q, tenantId) => quotas.admitClient(q, tenantId));
  const sessions = new Sessions(new SqlSessionRepository(db), tenants, { idleMs: config.sessionIdleMs, absoluteMs: config.sessionMaxMs });
  const metrics = new Metrics('tenant-directory');

  const service = defineService(td.TenantDirectoryService, {
    createTenant: async (r) =>
      tenants.create({
        name: r.name,
        email: r.email,
        plan: r.plan,
        webhookUrl: r.webhookUrl,
        billingCustomerId: r.billingCustomerId,
        billingSubscriptionId: r.billingSubscriptionId,
      }),
    getTenant: async (r) => ({ tenant: await tenants.get(r.tenantId) }),
    updateTenantWebhookUrl: async (r) => ({ tenant: await tenants.setWebhookUrl(r.tenantId, r.webhookUrl) }),
    rotateWebhookSecret: async (r) => tenants.rotateWebhookSecret(r.tenantId),
    createApiKey: async (r) =>
      tenants.createApiKey(r.tenantId, { scopes: r.scopes, clientIds: r.clientIds, expiresAt: r.expiresAt ? new Date(r.expiresAt) : undefined }),
    revokeApiKey: async (r) => {
      await tenants.revokeApiKey(r.tenantId, r.prefix);
      return {};
    },
    listApiKeys: async (r) => ({ keys: await tenants.listApiKeys(r.tenantId) }),
    authenticateApiKey: async (r) => tenants.authenticate(r.apiKey),
    createSession: async (r) => sessions.create(r.apiKey),
    authenticateSession: async (r) => ({ session: await sessions.authenticate(r.sessionToken) }),
    endSession: async (r) => {
      await sessions.end(r.sessionToken);
      return {};
    },
    registerClient: async (r) => ({ client: await clients.register(r) }),
    updateClient: async (r) => ({ client: await clients.update(r) }),
    getClient: async (r) => ({ client: await clients.get(r.tenantId, r.clientId) }),
    applyProviderAccountUpdate: (r) => clients.applyProviderAccountUpdate(r),
    listClients: async (r) => clients.list(r.tenantId, r.limit, r.cursor, r.onlyClientIds),
    getClientCredentials: async (r) => clients.credentials(r.tenantId, r.clientId),
    findClientsByPhoneNumberId: async (r) => ({ clients: await clients.byPhoneNumberId(r.phoneNumberId) }),
    findClientsByBusinessAccountId: async (r) => ({ clients: await clients.byBusinessAccountId(r.businessAccountId) }),
    getDeliveryTarget: async (r) => {
      let tenantSuspended = false;
      const target = await clients.deliveryTarget(r.clientId, async (tenantId) => {
        const t = await tenants.row(tenantId);
        tenantSuspended = Boolean(t.suspended_at);
        const secrets = tenants.signingSecrets(t);
        return { url: t.webhook_url, secret: secrets.current, previous: secrets.previous };
      });
      return { ...target, tenantSuspended };
    },
    disableClientWebhook: async (r) => ({
      disabled: await clients.disableWebhook(r.clientId, r.url, r.reason, async (tenantId) => (await tenants.row(tenantId)).webhook_url),
    }),
    setClientSignupStatus: async (r) => ({ client: await clients.setSignupStatus(r) }),
    completeClientSignup: async (r) => clients.completeSignup(r),
    getClientById: async (r) => ({ client: await clients.byId(r.clientId) }),
  });

  const grpc = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    logger,
    services: [
      service,
      defineBusinessService(quotas, new TenantAdmin(db, tenants, config.plans, published), clients, new AuditLog(db), logger),
      // the directory's own rows of a deleted tenant: its clients' too (the edge erases the directory last)
      defineTenantDataService(
        (ids) => eraseRowsMentioning(db, ids),
        async (tenantId) => (await db.query<{ id: string }>('SELECT id FROM clients WHERE tenant_id = $1', [tenantId])).map((c) => c.id),
      ),
    ],
    observer: metrics.grpcObserver,
  });
  const metricsServer = await startMetricsServer(metrics, config.metricsPort);
  // counters of windows long past
  const sweep = setInterval(() => void quotas.sweep().catch((e: Error) => logger.warn({ error: e.message }, 'usage counter sweep failed')), 60_000);
  sweep.unref();
  logger.info({ grpcPort: grpc.port, metricsPort: metricsServer.port, storage: db.kind }, 'tenant-directory ready');

  return {
    grpcPort: grpc.port,
    metricsPort: metricsServer.port,
    async stop() {
      clearInterval(sweep);
      await grpc.shutdown();
      await relay.stop();
      await metricsServer.close();
      await bus.close();
      await db.close();
    },
  };
}
