import { bool, common, int, loadConfig, oneOf, optStr, str } from '@gateway/config';
import { runMain } from '@gateway/runtime';
import { startProviderSim } from './server';
import { DEFAULT_REQUEST_LOG_MAX } from './state';

function readConfig(env = process.env) {
  return loadConfig(
    {
      logLevel: common.logLevel,
      port: int('PORT', 9090, { min: 0, max: 65535 }),
      host: str('HOST', '127.0.0.1'),
      appId: str('PROVIDER_APP_ID', 'sim-app-id'),
      appSecret: str('PROVIDER_APP_SECRET', 'sim-app-secret'),
      verifyToken: str('PROVIDER_VERIFY_TOKEN', 'sim-verify-token'),
      configId: str('PROVIDER_CONFIG_ID', 'sim-config-id'),
      webhookUrl: optStr('SIM_WEBHOOK_URL'),
      autoStatuses: bool('SIM_AUTO_STATUSES', true),
      // newer provider behaviour: editing a published flow moves it back to draft instead of error 139001
      publishedFlowsEditable: bool('SIM_PUBLISHED_FLOWS_EDITABLE', false),
      // production failure modes, on by default (the control API switches them at run time)
      window: oneOf('SIM_WINDOW', ['sync', 'async', 'off'] as const, 'async'),
      rateLimits: bool('SIM_RATE_LIMITS', true),
      templateReviewMs: int('SIM_TEMPLATE_REVIEW_MS', 2000, { min: 0, max: 3_600_000 }),
      // the origin of media download URLs (default http://localhost:<PORT>); the gateway's PROVIDER_MEDIA_HOSTS must allow it
      mediaBaseUrl: optStr('SIM_MEDIA_BASE_URL'),
      // the newest Graph API requests kept for GET /_sim/requests (older ones are let go and counted)
      requestLogMax: int('SIM_REQUEST_LOG_MAX', DEFAULT_REQUEST_LOG_MAX, { min: 1, max: 10_000_000 }),
    },
    env,
  );
}

runMain(
  'provider-sim',
  () => readConfig(),
  async (config, logger) => {
    const sim = await startProviderSim({ ...config, logger });
    logger.info({ url: sim.url, mediaBaseUrl: sim.mediaBaseUrl }, 'provider simulator listening');
    return sim;
  },
);
