import { connectBus, runConsumer, STREAMS } from '@gateway/bus';
import { dispatcher as d, tenantDirectory as td } from '@gateway/contracts';
import { followDirectoryChanges } from '@gateway/directory-changes';
import type { Logger } from '@gateway/logger';
import { startOutboxRelay } from '@gateway/outbox';
import { createServiceClient, defineService, startGrpcServer, defineTenantDataService, defineUsageService } from '@gateway/rpc';
import { Metrics, startMetricsServer, type RunningProcess } from '@gateway/runtime';
import { openDb, eraseRowsMentioning } from '@gateway/store';
import { nanos } from 'nats';
import type { DispatcherConfig } from './config';
import { Deliveries } from './deliveries';
import { DeliveryTargets } from './delivery-targets';
import { DeliveryWorker } from './delivery-worker';
import { EndpointHealth } from './endpoint-health';
import { RecordReader } from './record-reader';
import { RecordWriter } from './record-writer';
import { migrations } from './store/migrations';
import { SqlDeliveryRepository } from './store/deliveries';
import { WebhookSender } from './webhook-sender';
import { DeliveryRetention, RetentionClock } from './retention';

export interface RunningDispatcher extends RunningProcess {
  grpcPort: number;
  metricsPort: number;
  /** What delivery retention counts from (a test moves it forward). */
  clock: RetentionClock;
  /** One retention sweep now (it also runs hourly). */
  pruneNow(): Promise<number>;
}

export const EVENTS_DURABLE = 'dispatcher-webhooks';
export const RETRIES_DURABLE = 'dispatcher-webhook-retries';

export async function startDispatcher(config: DispatcherConfig, logger: Logger): Promise<RunningDispatcher> {
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    preparedStatements: config.databasePreparedStatements,
    dataDir: config.dataDir,
    schema: 'dispatcher',
    migrations,
  });
  const bus = await connectBus({
    url: config.natsUrl,
    name: 'dispatcher',
    logger,
    streams: [STREAMS.events, STREAMS.webhookRetries, STREAMS.deadLetter, STREAMS.directoryChanges],
    replicas: config.jetstreamReplicas,
  });
  const relay = startOutboxRelay({ db, bus, logger });
  const directory = createServiceClient(td.TenantDirectoryService, config.tenantDirectoryAddr, { defaultDeadlineMs: 5_000 });
  const targets = new DeliveryTargets(directory);
  const changes = await followDirectoryChanges({
    bus,
    logger,
    onChange: (c) => (c.kind === 'tenant' ? targets.dropTenant(c.tenantId) : c.kind === 'client' && c.clientId ? targets.dropClient(c.clientId) : undefined),
    onGap: () => targets.clear(),
  });
  const sender = new WebhookSender({ timeoutMs: config.timeoutMs, allowPrivateTargets: config.allowPrivateTargets });
  const metrics = new Metrics('dispatcher');
  const delivered = metrics.counter('webhook_deliveries_total', 'Webhook delivery attempts by outcome and attempt number', ['outcome', 'attempt']);
  const duration = metrics.histogram(
    'webhook_delivery_duration_seconds',
    'Webhook attempt duration',
    ['outcome'],
    [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  );
  const repo = new SqlDeliveryRepository(db);
  const writer = new RecordWriter(repo, logger);
  const health = await EndpointHealth.open(db, config.disableAfterMs);
  // (this process reads the client's target afresh until the directory answers: its next event follows the change)
  const disable = async (clientId: string, url: string, reason: string) =>
    targets.whileChanging(clientId, async () => (await directory.disableClientWebhook({ clientId, url, reason })).disabled);
  const worker = new DeliveryWorker(repo, new RecordReader(repo), writer, targets, sender, health, disable, logger, {
    retryDelaysMs: config.retryDelaysMs,
    observe: (outcome, attempt, ms) => {
      delivered.inc({ outcome, attempt: String(attempt) });
      if (ms !== undefined) duration.observe({ outcome }, ms / 1000);
    },
  });

  // ack_wait outlasts one attempt; messages waiting out a nak delay count against max_ack_pending, so it is
  // far above the handler concurrency. max_deliver leaves room for redeliveries after crashes and directory
  // outages: the attempt limit itself is enforced from the delivery record.
  const consumerConfig = {
    ack_wait: nanos(Math.max(config.timeoutMs * 2 + 5_000, 10_000)),
    max_deliver: config.retryDelaysMs.length + 1 + 10,
    max_ack_pending: 20_000,
  };
  const consumers = await Promise.all([
    runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: EVENTS_DURABLE,
      logger,
      concurrency: config.concurrency,
      config: consumerConfig,
      lag: metrics.consumerLag,
      deadLettered: metrics.deadLettered,
      handle: (m) => worker.handle(m),
    }),
    runConsumer({
      bus,
      stream: STREAMS.webhookRetries.name,
      durable: RETRIES_DURABLE,
      logger,
      concurrency: Math.max(4, config.concurrency / 4),
      config: consumerConfig,
      lag: metrics.consumerLag,
      deadLettered: metrics.deadLettered,
      handle: (m) => worker.handle(m),
    }),
  ]);

  const deliveries = new Deliveries(db, repo, targets, () => relay.kick());
  const service = defineService(d.DispatcherService, {
    listDeliveries: (r) => deliveries.list(r),
    getDelivery: (r) => deliveries.get(r.tenantId, r.clientId, r.deliveryId),
    retryDelivery: (r) => deliveries.retry(r.tenantId, r.clientId, r.deliveryId),
    sendTestEvent: (r) => deliveries.sendTest(r.tenantId, r.clientId),
    replayDeliveries: (r) => deliveries.replay(r),
  });
  const grpc = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    logger,
    services: [
      service,
      defineTenantDataService((ids) => eraseRowsMentioning(db, ids)),
      // GET /api/usage: this service's rows of the tenant per UTC day
      // (and the dashboard's chart of one client's outcomes: deliveries_client_created serves it)
      defineUsageService((tenantId: string, from: string, to: string, clientId: string | null) =>
        db.query<{ day: string; key: string; count: number }>(
          `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, status AS key, count(*)::int AS count FROM deliveries
             WHERE tenant_id = $1 ${clientId ? 'AND client_id = $4' : ''} AND created_at >= $2::date AND created_at < ($3::date + 1) GROUP BY 1, 2 ORDER BY 1, 2`,
          clientId ? [tenantId, from, to, clientId] : [tenantId, from, to],
        ),
      ),
    ],
    observer: metrics.grpcObserver,
  });
  const metricsServer = await startMetricsServer(metrics, config.metricsPort);
  const retention = new DeliveryRetention(db, new RetentionClock(), config.deliveryRetentionDays, logger);
  const prune = setInterval(
    () => retention.sweep().catch((e: unknown) => logger.warn({ err: e }, 'could not prune delivery records past retention')),
    60 * 60 * 1000,
  );
  prune.unref();
  logger.info({ grpcPort: grpc.port, metricsPort: metricsServer.port, storage: db.kind, retryDelaysMs: config.retryDelaysMs }, 'dispatcher ready');

  return {
    grpcPort: grpc.port,
    metricsPort: metricsServer.port,
    clock: retention.clock,
    pruneNow: () => retention.sweep(),
    async stop() {
      clearInterval(prune);
      await grpc.shutdown();
      // in-flight attempts finish and are acked or naked; nothing waits in memory
      await Promise.all(consumers.map((c) => c.stop()));
      await writer.flush();
      await relay.stop();
      await changes.stop();
      await sender.close();
      await metricsServer.close();
      directory.close();
      await bus.close();
      await db.close();
    },
  };
}
