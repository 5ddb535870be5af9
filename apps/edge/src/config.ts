import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { MAX_WEBHOOK_BODY_BYTES } from '@gateway/bus';
import { common, EDGE, int, loadConfig, str, url, type Env, type Field } from '@gateway/config';
import { MediaHosts } from '@gateway/provider-client';
import proxyaddr from 'proxy-addr';

/** The provider's documented media download host (supplement §3): media URLs are there, not on the Graph API host. */
export const DEFAULT_PROVIDER_MEDIA_HOSTS = ['lookaside.fbsbx.com'];

/** PROVIDER_MEDIA_HOSTS: comma-separated host names (https) or origins (`http://host:port`, taken exactly). */
const mediaHosts: Field<string[]> = {
  key: 'PROVIDER_MEDIA_HOSTS',
  parse(raw) {
    if (raw === undefined) return DEFAULT_PROVIDER_MEDIA_HOSTS;
    const entries = raw
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    for (const e of entries) {
      try {
        MediaHosts.originOf(e);
      } catch {
        throw new Error(`must be comma-separated host names or origins, got "${e}"`);
      }
    }
    return entries;
  },
};

/**
 * TRUSTED_PROXIES: comma-separated addresses and CIDRs (IPv4 or IPv6, or proxy-addr's names `loopback`,
 * `linklocal`, `uniquelocal`) of the proxies in front of the edge (the ingress). Only a connection from one of
 * them may say who the client is (`X-Forwarded-For`); empty (the default): nobody, the socket's address is the
 * client's.
 */
const trustedProxies: Field<string[]> = {
  key: 'TRUSTED_PROXIES',
  parse(raw) {
    const entries = (raw ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean);
    try {
      proxyaddr.compile(entries);
    } catch (e) {
      throw new Error(`must be comma-separated IP addresses or CIDRs: ${(e as Error).message}`);
    }
    return entries;
  },
};

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
      /** The media API (/api/media) is the one provider API the edge calls itself (docs/media.md). */
      ...common.providerFields(),
      providerMediaHosts: mediaHosts,
      /** How long one upload may take, its body included (a 100 MB document on a slow link): the route's own request timeout. */
      mediaUploadTimeoutMs: int('MEDIA_UPLOAD_TIMEOUT_MS', 600_000, { min: 1000 }),
      /** How long the download of one media from the provider may take, its body included. */
      mediaDownloadTimeoutMs: int('MEDIA_DOWNLOAD_TIMEOUT_MS', 300_000, { min: 1000 }),
      /** How long any other request's (JSON, at most 1 MiB) body may take to arrive. */
      bodyTimeoutMs: int('BODY_TIMEOUT_MS', 60_000, { min: 1000 }),
      bodyLimitBytes: int('BODY_LIMIT_BYTES', 1024 * 1024, { min: 1024 }),
      /** Inbound provider webhooks may be up to 3 MB (provider reference 7.3); at most what one bus message carries. */
      webhookBodyLimitBytes: int('WEBHOOK_BODY_LIMIT_BYTES', 3 * 1024 * 1024, { min: 1024, max: MAX_WEBHOOK_BODY_BYTES }),
      authCacheTtlMs: int('AUTH_CACHE_TTL_MS', 4000, { min: 0, max: 5000 }),
      /** The proxies whose X-Forwarded-For names the client (middleware/client-address.ts). */
      trustedProxies,
      /** Opens of the public signup page per client address and minute (per edge replica). */
      signupPageOpensPerMinute: int('SIGNUP_PAGE_OPENS_PER_MINUTE', 30, { min: 1 }),
      /** Live streams (GET /api/stream) one tenant may hold open at once, per edge replica. */
      streamsPerTenant: int('STREAMS_PER_TENANT', 20, { min: 1, max: 1000 }),
      /** Development mode (WEBHOOK_ALLOW_PRIVATE_TARGETS): signup redirect URLs may be plain http. */
      allowPrivateTargets: common.allowPrivateTargets,
      /** The built dashboard (apps/dashboard, `nx run dashboard:build`), served at /dashboard. */
      dashboardDir: str('DASHBOARD_DIR', defaultDashboardDir),
    },
    env,
  );
}

export type EdgeConfig = ReturnType<typeof readConfig>;
