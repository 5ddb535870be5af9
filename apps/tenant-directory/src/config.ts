import { common, int, loadConfig, url, type Env } from '@gateway/config';

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      ...common.grpcServiceFields('tenant-directory'),
      secretsKey: common.secretsKey,
      publicBaseUrl: url('PUBLIC_BASE_URL', (e) => `http://localhost:${e.PORT ?? 8080}`),
      /** A dashboard session ends after this long without a request (default 30 min) ... */
      sessionIdleMs: int('DASHBOARD_SESSION_IDLE_MS', 30 * 60_000, { min: 1000 }),
      /** ... and this long after sign-in whatever happens (default 12 h). */
      sessionMaxMs: int('DASHBOARD_SESSION_MAX_MS', 12 * 3600_000, { min: 1000 }),
    },
    env,
  );
}

export type TenantDirectoryConfig = ReturnType<typeof readConfig>;
