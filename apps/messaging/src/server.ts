import { create } from '@bufbuild/protobuf';
import { connectBus, STREAMS } from '@gateway/bus';
import { calls as c, messaging as m, tenantDirectory as td } from '@gateway/contracts';
import { followDirectoryChanges } from '@gateway/directory-changes';
import type { Logger } from '@gateway/logger';
import { createServiceClient, defineService, startGrpcServer, defineTenantDataService, defineUsageService } from '@gateway/rpc';
import { Metrics, startMetricsServer, type RunningProcess } from '@gateway/runtime';
import { connectProvider } from '@gateway/provider-client';
import { openDb, eraseRowsMentioning } from '@gateway/store';
import { Calls } from './calls/calls';
import { defineCallsService } from './calls/service';
import { SqlCallRepository } from './calls/store';
import { startOutboxRelay } from '@gateway/outbox';
import { Campaigns } from './campaigns/campaigns';
import { CampaignEvents } from './campaigns/events';
import { CampaignInbound } from './campaigns/inbound';
import { PortfolioWindows } from './campaigns/messaging-limit';
import { NumberShare } from './campaigns/priority';
import { CampaignRunner } from './campaigns/runner';
import { defineCampaignsService } from './campaigns/service';
import { SqlCampaignRepository } from './campaigns/store';
import { ClientCredentialsCache } from './client-cache';
import type { MessagingConfig } from './config';
import { IdempotentRunner } from './idempotency';
import { ClientLookup } from './inbound/client-lookup';
import { startInboundConsumer } from './inbound/inbound-consumer';
import { Messaging } from './messaging';
import { defineTemplatesService } from './templates/service';
import { SqlTemplateRepository } from './templates/store';
import { Templates } from './templates/templates';
import { migrations } from './store/migrations';
import { MessageStore } from './store/message-store';
import { SqlConversations } from './store/conversations';
import { Clock } from './clock';
import { LiveUpdates } from './live';
import { MessageRetention } from './retention';
import { defineConversationsService } from './conversations-service';
import { sendBatch } from './send-batch';

export interface RunningMessaging extends RunningProcess {
  grpcPort: number;
  metricsPort: number;
  /** When messages are logged and what retention counts from (a test moves it forward). */
  clock: Clock;
  /** One retention sweep now (it also runs hourly). */
  pruneNow(): Promise<{ messages: number; contacts: number }>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export async function startMessaging(config: MessagingConfig, logger: Logger): Promise<RunningMessaging> {
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    preparedStatements: config.databasePreparedStatements,
    dataDir: config.dataDir,
    schema: 'messaging',
    migrations,
  });
  const metrics = new Metrics('messaging');
  const directory = createServiceClient(td.TenantDirectoryService, config.tenantDirectoryAddr, { defaultDeadlineMs: 10_000 });
  const provider = connectProvider(config, metrics.providerCall);
  metrics.providerApiVersion(config.providerApiVersion, logger);
  const clock = new Clock();
  const conversations = new SqlConversations(db, db.kind);
  const live = new LiveUpdates(logger);
  const store = new MessageStore(db, logger, { clock, conversations, live });
  const messages = store.repository;
  // a claim outlives the longest a request can run (provider timeout, one retry) many times over
  const runner = new IdempotentRunner(db, { ttlMs: DAY_MS, leaseMs: Math.max(60_000, config.providerTimeoutMs * 6) }, store, logger);
  const credentials = new ClientCredentialsCache(directory);
  const routes = new ClientLookup(directory);
  const templateRepo = new SqlTemplateRepository(db);
  const templates = new Templates(credentials, provider, templateRepo);
  const svc = new Messaging(directory, provider, runner, messages, credentials, templates);
  const callRecords = new SqlCallRepository(db);
  const calls = new Calls(svc, provider, runner, callRecords);
  const campaignRepo = new SqlCampaignRepository(db);
  const portfolioWindows = new PortfolioWindows(db);

  const service = defineService(m.MessagingService, {
    send: (r) => svc.send(r),
    sendBatch: sendBatch(svc, logger),
    blockUsers: async (r) => {
      const res = await svc.blockUsers(r.caller, r.users, true);
      return { addedUsers: res.users, replayed: res.replayed };
    },
    unblockUsers: async (r) => {
      const res = await svc.blockUsers(r.caller, r.users, false);
      return { removedUsers: res.users, replayed: res.replayed };
    },
    indicateTyping: (r) => svc.markRead(r.caller, r.messageId, true),
    markRead: (r) => svc.markRead(r.caller, r.messageId, false),
    // the older route's RPC: the Calling API's accept (its record, the same idempotency operation)
    acceptCall: (r) =>
      calls.action(
        create(c.CallActionRequestSchema, { caller: r.caller && { ...r.caller, $typeName: undefined }, callId: r.callId, action: 'accept', sdp: r.sdp }),
      ),
    getMessage: (r) => svc.getMessage(r),
  });

  const bus = await connectBus({
    url: config.natsUrl,
    name: 'messaging',
    logger,
    streams: [STREAMS.providerInbound, STREAMS.events, STREAMS.deadLetter, STREAMS.directoryChanges, STREAMS.conversations],
    replicas: config.jetstreamReplicas,
  });
  live.attach(bus);
  // a changed client (deactivated, new token, new ids) is dropped from both caches before its change is answered
  const changes = await followDirectoryChanges({
    bus,
    logger,
    onChange: (c) => {
      if (c.kind !== 'client' || !c.clientId) return;
      credentials.drop(c.tenantId, c.clientId);
      routes.drop(c.clientId, c.phoneNumberIds, c.businessAccountIds);
    },
    onGap: () => {
      credentials.clear();
      routes.clear();
    },
  });
  const inbound = await startInboundConsumer({
    bus,
    lookup: routes,
    messages,
    db,
    templates,
    calls: callRecords,
    campaigns: new CampaignInbound(campaignRepo, portfolioWindows, db),
    conversations,
    live,
    clock,
    // the tenant directory owns the client: it changes it and publishes the change notice the caches follow
    // (and this process reads the client afresh until the change is answered: its sends follow it at once)
    applyAccountUpdate: async (client, u) => {
      await credentials.whileChanging(client.tenantId, client.id, () =>
        directory.applyProviderAccountUpdate({ tenantId: client.tenantId, clientId: client.id, ...u }),
      );
    },
    logger,
    metrics,
  });
  const relay = startOutboxRelay({ db, bus, logger });
  const campaignEvents = new CampaignEvents(relay, credentials);
  const campaigns = new Campaigns(db, templateRepo, svc, campaignEvents);
  const numberShare = new NumberShare(db, logger, metrics);
  svc.onSingleSend = (s) => {
    const departure = numberShare.singleSend(s.phoneNumberId);
    if (s.template && s.user) portfolioWindows.noteSend(s.client, s.user, logger);
    return departure;
  };
  const campaignRunner = new CampaignRunner(db, svc, logger, metrics, campaignEvents, numberShare);
  const retention = new MessageRetention(conversations, clock, config.messageRetentionDays, logger);

  const grpc = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    logger,
    services: [
      service,
      defineTemplatesService(templates),
      defineCallsService(calls),
      defineCampaignsService(campaigns),
      defineConversationsService(conversations, clock),
      defineTenantDataService((ids) => eraseRowsMentioning(db, ids)),
      // GET /api/usage: this service's rows of the tenant per UTC day
      defineUsageService((tenantId: string, from: string, to: string) =>
        db.query<{ day: string; key: string; count: number }>(
          // the gateway's own sends: the log also holds inbound messages and echoes of the business app (which
          // the gateway never accepted)
          `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, coalesce(pricing->>'category', 'unknown') AS key, count(*)::int AS count FROM messages
             WHERE tenant_id = $1 AND created_at >= $2::date AND created_at < ($3::date + 1) AND direction = 'out'
               AND status_history @> '[{"status": "accepted"}]'::jsonb
             GROUP BY 1, 2 ORDER BY 1, 2`,
          [tenantId, from, to],
        ),
      ),
    ],
    observer: metrics.grpcObserver,
  });
  const metricsServer = await startMetricsServer(metrics, config.metricsPort);
  campaignRunner.start();
  // expired idempotency keys are deleted hourly (a key is also taken over once expired, so this only bounds the table)
  const purge = setInterval(
    () => {
      runner.purgeExpired().catch((e: unknown) => logger.warn({ err: e }, 'could not purge expired idempotency keys'));
      messages.purgeEarlyStatuses(DAY_MS).catch((e: unknown) => logger.warn({ err: e }, 'could not purge early status updates'));
      retention.sweep().catch((e: unknown) => logger.warn({ err: e }, 'could not prune messages past retention'));
    },
    60 * 60 * 1000,
  );
  purge.unref();
  logger.info({ grpcPort: grpc.port, metricsPort: metricsServer.port, storage: db.kind }, 'messaging ready');

  return {
    grpcPort: grpc.port,
    metricsPort: metricsServer.port,
    clock,
    pruneNow: () => retention.sweep(),
    async stop() {
      clearInterval(purge);
      await grpc.shutdown();
      await campaignRunner.stop();
      await relay.stop();
      await store.flush();
      await inbound.stop();
      await changes.stop();
      await bus.close();
      await metricsServer.close();
      directory.close();
      await provider.close();
      await db.close();
    },
  };
}
