import { common, int, loadConfig, url, type Env } from '@gateway/config';
import { plansField } from './business/plans';

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      ...common.grpcServiceFields('tenant-directory'),
      jetstreamReplicas: common.jetstreamReplicas,
      secretsKey: common.secretsKey,
      publicBaseUrl: url('PUBLIC_BASE_URL', (e) => `http://localhost:${e.PORT ?? 8080}`),
      /** How long the secret before a rotation keeps signing deliveries beside the new one (default 24 h). */
      webhookSecretOverlapMs: int('WEBHOOK_ROTATION_OVERLAP_MS', 24 * 3600_000, { min: 0, max: 30 * 24 * 3600_000 }),
      /** How long a change waits for its notice to reach the bus before it is answered anyway (bus down). */
      noticeWaitMs: int('DIRECTORY_NOTICE_WAIT_MS', 2000, { min: 0, max: 10_000 }),
      /** A dashboard session ends after this long without a request (default 30 min) ... */
      sessionIdleMs: int('DASHBOARD_SESSION_IDLE_MS', 30 * 60_000, { min: 1000 }),
      /** ... and this long after sign-in whatever happens (default 12 h). */
      sessionMaxMs: int('DASHBOARD_SESSION_MAX_MS', 12 * 3600_000, { min: 1000 }),
      /** The plan catalogue (business/plans.ts, docs/business.md): JSON, default free/standard/pro/enterprise. */
      plans: plansField,
    },
    env,
  );
}

export type TenantDirectoryConfig = ReturnType<typeof readConfig>;
