import { common, grpcService, int, loadConfig, PROVIDER_SIM, str, url, type Env, type Field } from '@gateway/config';

const DEFAULT_PROVIDER_BASE_URL = `http://127.0.0.1:${PROVIDER_SIM.port}`;

/** Is the Graph API base the provider's production host (then its real SDK and web origins apply)? */
function isProductionGraph(base: string): boolean {
  return new URL(base).hostname === 'graph.facebook.com';
}

/**
 * The provider's JavaScript SDK: the real one in front of the production Graph API, otherwise the
 * simulator's stand-in served beside its Graph API.
 */
export function defaultSdkUrl(env: Env): string {
  const base = (env.PROVIDER_BASE_URL || DEFAULT_PROVIDER_BASE_URL).replace(/\/+$/, '');
  return isProductionGraph(base) ? 'https://connect.facebook.net/en_US/sdk.js' : `${base}/sdk.js`;
}

/**
 * Origins allowed to post session-info messages (comma-separated). The provider posts from its web origins
 * (reference §6.1), which are not the SDK's host; for the simulator both are its own origin.
 */
function providerOrigins(): Field<string[]> {
  return {
    key: 'PROVIDER_ORIGINS',
    parse(raw, env) {
      if (raw === undefined) {
        const sdk = env.PROVIDER_SDK_URL || defaultSdkUrl(env);
        if (new URL(sdk).hostname === 'connect.facebook.net') return ['https://www.facebook.com', 'https://web.facebook.com'];
        return [new URL(sdk).origin];
      }
      return raw.split(',').map((o) => {
        const trimmed = o.trim();
        if (!URL.canParse(trimmed) || new URL(trimmed).origin !== trimmed)
          throw new Error(`must be a comma-separated list of origins (scheme://host[:port]), got "${trimmed}"`);
        return trimmed;
      });
    },
  };
}

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      logLevel: common.logLevel,
      databaseUrl: common.databaseUrl,
      databasePreparedStatements: common.databasePreparedStatements,
      dataDir: common.dataDir,
      grpcHost: common.grpcHost,
      grpcPort: common.grpcPort(grpcService('signup').grpcPort),
      metricsPort: common.metricsPort(grpcService('signup').metricsPort),
      tenantDirectoryAddr: common.serviceAddr('tenant-directory'),
      secretsKey: common.secretsKey,
      ...common.providerFields(),
      providerAppId: str('PROVIDER_APP_ID', 'sim-app-id'),
      providerAppSecret: str('PROVIDER_APP_SECRET', 'sim-app-secret'),
      providerConfigId: str('PROVIDER_CONFIG_ID', 'sim-config-id'),
      providerSdkUrl: url('PROVIDER_SDK_URL', defaultSdkUrl),
      providerOrigins: providerOrigins(),
      /** How long a visit of the signup page may take before its session expires. */
      sessionTtlMs: int('SIGNUP_SESSION_TTL_MS', 60 * 60_000, { min: 60_000 }),
    },
    env,
  );
}

export type SignupConfig = ReturnType<typeof readConfig>;
