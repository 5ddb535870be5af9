import { flows as f, tenantDirectory as td } from '@gateway/contracts';
import type { Logger } from '@gateway/logger';
import { createServiceClient, defineService, startGrpcServer, defineTenantDataService } from '@gateway/rpc';
import { Metrics, startMetricsServer, type RunningProcess } from '@gateway/runtime';
import { connectProvider } from '@gateway/provider-client';
import { openDb, eraseRowsMentioning } from '@gateway/store';
import type { FlowsConfig } from './config';
import { Flows } from './flows';
import { presentFlow } from './present';
import { migrations } from './store/migrations';
import { SqlFlowRepository } from './store/repository';
import { FlowSync } from './sync';

export interface RunningFlows extends RunningProcess {
  grpcPort: number;
  metricsPort: number;
}

export async function startFlows(config: FlowsConfig, logger: Logger): Promise<RunningFlows> {
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    preparedStatements: config.databasePreparedStatements,
    dataDir: config.dataDir,
    schema: 'flows',
    migrations,
  });
  const metrics = new Metrics('flows');
  const directory = createServiceClient(td.TenantDirectoryService, config.tenantDirectoryAddr, { defaultDeadlineMs: 10_000 });
  const provider = connectProvider(config, metrics.providerCall);
  metrics.providerApiVersion(config.providerApiVersion, logger);
  const repo = new SqlFlowRepository(db);
  const svc = new Flows(directory, provider, repo, new FlowSync(provider, repo, logger), logger);

  const service = defineService(f.FlowsService, {
    createFlow: async (r) => ({ flow: presentFlow(await svc.create(r)) }),
    getFlow: async (r) => ({ flow: presentFlow(await svc.get(r)) }),
    listFlows: async (r) => {
      const page = await svc.list(r);
      return { flows: page.flows.map(presentFlow), nextCursor: page.nextCursor };
    },
    updateFlowJson: async (r) => ({ flow: presentFlow(await svc.updateJson(r)) }),
    publishFlow: async (r) => ({ flow: presentFlow(await svc.publish(r)) }),
    deprecateFlow: async (r) => ({ flow: presentFlow(await svc.deprecate(r)) }),
    deleteFlow: async (r) => {
      await svc.delete(r);
      return {};
    },
    checkFlowUse: async (r) => {
      await svc.checkUse(r);
      return {};
    },
  });

  // no bus: this service neither publishes nor consumes events
  const grpc = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    logger,
    services: [service, defineTenantDataService((ids) => eraseRowsMentioning(db, ids))],
    observer: metrics.grpcObserver,
  });
  const metricsServer = await startMetricsServer(metrics, config.metricsPort);
  logger.info({ grpcPort: grpc.port, metricsPort: metricsServer.port, storage: db.kind }, 'flows ready');

  return {
    grpcPort: grpc.port,
    metricsPort: metricsServer.port,
    async stop() {
      await grpc.shutdown();
      await metricsServer.close();
      directory.close();
      await provider.close();
      await db.close();
    },
  };
}
