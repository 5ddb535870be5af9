import { common, loadConfig, url, type Env } from '@gateway/config';

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      logLevel: common.logLevel,
      natsUrl: common.natsUrl,
      databaseUrl: common.databaseUrl,
      dataDir: common.dataDir,
      grpcHost: common.grpcHost,
      grpcPort: common.grpcPort(common.defaultPorts['tenant-directory'].grpc),
      metricsPort: common.metricsPort(common.defaultPorts['tenant-directory'].metrics),
      secretsKey: common.secretsKey,
      publicBaseUrl: url('PUBLIC_BASE_URL', (e) => `http://localhost:${e.PORT ?? 8080}`),
    },
    env,
  );
}

export type TenantDirectoryConfig = ReturnType<typeof readConfig>;
