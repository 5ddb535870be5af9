import { common, loadConfig, url, type Env } from '@gateway/config';

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      ...common.grpcServiceFields('tenant-directory'),
      jetstreamReplicas: common.jetstreamReplicas,
      secretsKey: common.secretsKey,
      publicBaseUrl: url('PUBLIC_BASE_URL', (e) => `http://localhost:${e.PORT ?? 8080}`),
    },
    env,
  );
}

export type TenantDirectoryConfig = ReturnType<typeof readConfig>;
