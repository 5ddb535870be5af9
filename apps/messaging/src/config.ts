import { common, loadConfig, type Env } from '@gateway/config';

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      logLevel: common.logLevel,
      natsUrl: common.natsUrl,
      databaseUrl: common.databaseUrl,
      dataDir: common.dataDir,
      grpcHost: common.grpcHost,
      grpcPort: common.grpcPort(common.defaultPorts.messaging.grpc),
      metricsPort: common.metricsPort(common.defaultPorts.messaging.metrics),
      tenantDirectoryAddr: common.serviceAddr.tenantDirectory,
      providerBaseUrl: common.providerBaseUrl,
      providerApiVersion: common.providerApiVersion,
      providerTimeoutMs: common.providerTimeoutMs,
    },
    env,
  );
}

export type MessagingConfig = ReturnType<typeof readConfig>;
