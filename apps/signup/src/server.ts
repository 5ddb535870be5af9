import { business, signup as s, tenantDirectory as td } from '@gateway/contracts';
import { resolveSecretsKey, SecretBox } from '@gateway/crypto';
import type { Logger } from '@gateway/logger';
import { connectProvider } from '@gateway/provider-client';
import { createServiceClient, defineService, startGrpcServer, defineTenantDataService } from '@gateway/rpc';
import { Metrics, startMetricsServer, type RunningProcess } from '@gateway/runtime';
import { openDb, eraseRowsMentioning } from '@gateway/store';
import type { SignupConfig } from './config';
import { Offboarding } from './offboarding';
import { PinVault } from './pins';
import { Signup } from './signup';
import { migrations } from './store/migrations';
import { SqlSignupRepository } from './store/repository';

const DAY_MS = 24 * 60 * 60_000;

export interface RunningSignup extends RunningProcess {
  grpcPort: number;
  metricsPort: number;
}

export async function startSignup(config: SignupConfig, logger: Logger): Promise<RunningSignup> {
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    preparedStatements: config.databasePreparedStatements,
    dataDir: config.dataDir,
    schema: 'signup',
    migrations,
  });
  const box = SecretBox.fromBase64(resolveSecretsKey(config.secretsKey, config.dataDir));
  const repo = new SqlSignupRepository(db);
  const directory = createServiceClient(td.TenantDirectoryService, config.tenantDirectoryAddr, { defaultDeadlineMs: 10_000 });
  const metrics = new Metrics('signup');
  const provider = connectProvider(config, metrics.providerCall, logger);
  metrics.providerApiVersion(config.providerApiVersion, logger);
  const outcomes = metrics.counter('signup_completions_total', 'Signup completions by outcome and failure reason', ['outcome', 'reason']);
  const signup = new Signup({
    repo,
    directory,
    provider,
    pins: new PinVault(repo, box),
    page: {
      appId: config.providerAppId,
      configId: config.providerConfigId,
      sdkUrl: config.providerSdkUrl,
      providerOrigins: config.providerOrigins,
      apiVersion: config.providerApiVersion,
    },
    sessionTtlMs: config.sessionTtlMs,
    // every step has the provider timeout and one retry at most; far beyond that, the process died mid-way
    staleAfterMs: Math.max(120_000, config.providerTimeoutMs * 12),
    logger,
    onOutcome: (outcome, reason) => outcomes.inc({ outcome, reason }),
  });

  const service = defineService(s.SignupService, {
    startSignup: (r) => signup.start(r.clientId, r.state),
    completeSignup: (r) => signup.complete(r),
    failSignup: (r) => signup.fail(r),
  });

  const businessClient = createServiceClient(business.BusinessService, config.tenantDirectoryAddr, { defaultDeadlineMs: 10_000 });
  const offboarding = new Offboarding(directory, businessClient, provider, logger);
  const lifecycle = defineService(business.ClientLifecycleService, {
    deleteClient: (r) => offboarding.deleteClient(r.tenantId, r.clientId),
  });

  // sessions that were used are kept a month after they expire (support questions), never-used ones only until
  // they expire; then they are deleted so the table stays small
  const purge = setInterval(() => {
    repo.purgeExpired(30 * DAY_MS).catch((e: unknown) => logger.warn({ err: e }, 'could not purge expired signup sessions'));
  }, 60 * 60_000);
  purge.unref();

  const grpc = await startGrpcServer({
    host: config.grpcHost,
    port: config.grpcPort,
    logger,
    services: [service, lifecycle, defineTenantDataService((ids) => eraseRowsMentioning(db, ids))],
    observer: metrics.grpcObserver,
  });
  const metricsServer = await startMetricsServer(metrics, config.metricsPort);
  logger.info({ grpcPort: grpc.port, metricsPort: metricsServer.port, storage: db.kind }, 'signup ready');

  return {
    grpcPort: grpc.port,
    metricsPort: metricsServer.port,
    async stop() {
      clearInterval(purge);
      await grpc.shutdown();
      await metricsServer.close();
      directory.close();
      businessClient.close();
      await provider.close();
      await db.close();
    },
  };
}
