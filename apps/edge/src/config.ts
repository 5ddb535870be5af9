import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { common, EDGE, int, loadConfig, str, url, type Env } from '@gateway/config';

/**
 * Where the built dashboard is: beside the bundle in an image (dist/dashboard), else the workspace's
 * dist/apps/dashboard (this file is three levels below the root both as source and as dist/apps/edge/main.js).
 */
function defaultDashboardDir(): string {
  const beside = resolve(__dirname, 'dashboard');
  return existsSync(resolve(beside, 'index.html')) ? beside : resolve(__dirname, '..', '..', '..', 'dist', 'apps', 'dashboard');
}

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      logLevel: common.logLevel,
      host: str('HOST', '0.0.0.0'),
      port: int(EDGE.portVar, EDGE.port, { min: 0, max: 65535 }),
      metricsPort: common.metricsPort(EDGE.metricsPort),
      publicBaseUrl: url('PUBLIC_BASE_URL', (e) => `http://localhost:${e[EDGE.portVar] ?? EDGE.port}`),
      adminToken: str('GATEWAY_ADMIN_TOKEN'),
      natsUrl: common.natsUrl,
      jetstreamReplicas: common.jetstreamReplicas,
      tenantDirectoryAddr: common.serviceAddr('tenant-directory'),
      messagingAddr: common.serviceAddr('messaging'),
      flowsAddr: common.serviceAddr('flows'),
      signupAddr: common.serviceAddr('signup'),
      dispatcherAddr: common.serviceAddr('dispatcher'),
      providerAppSecret: str('PROVIDER_APP_SECRET', 'sim-app-secret'),
      providerVerifyToken: str('PROVIDER_VERIFY_TOKEN', 'sim-verify-token'),
      bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, { min: 1024 }),
      /** Inbound provider webhooks may be up to 3 MB (provider reference 7.3). */
      webhookBodyLimitBytes: int('WEBHOOK_BODY_LIMIT_BYTES', 3 * 1024 * 1024, { min: 1024 }),
      authCacheTtlMs: int('AUTH_CACHE_TTL_MS', 4000, { min: 0, max: 5000 }),
      /** Opens of the public signup page per client address and minute (per edge replica). */
      signupPageOpensPerMinute: int('SIGNUP_PAGE_OPENS_PER_MINUTE', 30, { min: 1 }),
      /** Development mode (WEBHOOK_ALLOW_PRIVATE_TARGETS): signup redirect URLs may be plain http. */
      allowPrivateTargets: common.allowPrivateTargets,
      /** The built dashboard (apps/dashboard, `nx run dashboard:build`), served at /dashboard. */
      dashboardDir: str('DASHBOARD_DIR', defaultDashboardDir),
    },
    env,
  );
}

export type EdgeConfig = ReturnType<typeof readConfig>;
