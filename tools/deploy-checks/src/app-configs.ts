import proxyaddr from 'proxy-addr';
import { APP_NAMES, EDGE, GRPC_SERVICES as CATALOGUE, type Env } from '@gateway/config';

/** The apps a deployment runs (the service catalogue of @gateway/config): the edge (HTTP) and the gRPC services. */
export type AppName = string;
export const APPS = [...APP_NAMES];
export const GRPC_SERVICES = CATALOGUE.map((s) => s.name);
export const isEdge = (app: AppName) => app === EDGE.name;

export type ReadConfig = (env: Env) => Record<string, unknown>;

/** The app's own `readConfig` (apps/<app>/src/config.ts, exported by its index as @gateway/app-<app>). */
export async function loadReadConfig(app: AppName): Promise<ReadConfig> {
  const mod = (await import(`@gateway/app-${app}`)) as { readConfig?: ReadConfig };
  if (typeof mod.readConfig !== 'function') throw new Error(`@gateway/app-${app} exports no readConfig`);
  return mod.readConfig;
}

/**
 * Every variable the config reads. The env given to it answers every key with a value (so no derived default
 * runs and asks for other keys); the keys it asks for are the config's fields. Parsing the dummy values fails
 * for most fields, which is irrelevant here.
 */
export function variablesRead(readConfig: ReadConfig): string[] {
  const asked = new Set<string>();
  const env = new Proxy({} as Env, {
    get(_target, key) {
      if (typeof key !== 'string') return undefined;
      asked.add(key);
      return 'x';
    },
  });
  try {
    readConfig(env);
  } catch {
    // ConfigError for the dummy values
  }
  return [...asked].sort();
}

/** Variables without a default: readConfig with an empty env names each of them in its ConfigError. */
export function requiredVariables(readConfig: ReadConfig): string[] {
  try {
    readConfig({});
    return [];
  } catch (e) {
    const problems = (e as { problems?: string[] }).problems;
    if (!Array.isArray(problems)) throw e;
    return problems.map((p) => p.slice(0, p.indexOf(':'))).sort();
  }
}

/** Variables whose empty value is a setting of its own (TRUSTED_PROXIES: trust no proxy): set, but possibly empty. */
export const MAY_BE_EMPTY = new Set(['TRUSTED_PROXIES']);

/** Public addresses a trusted-proxy list must never cover (anyone could then name the client). */
const PUBLIC_PROBES = ['8.8.8.8', '203.0.113.7', '1.1.1.1', '2001:4860:4860::8888', '2a00:1450::1'];

/** Which of the public probe addresses a TRUSTED_PROXIES value trusts (none is the only right answer). */
export function publicAddressesTrusted(trustedProxies: string[]): string[] {
  const trust = proxyaddr.compile(trustedProxies);
  return PUBLIC_PROBES.filter((a) => trust(a, 0));
}

/** Variables whose values are secrets: they must come from a Secret (Kubernetes) or from .env (compose). */
export function isSensitive(name: string): boolean {
  return /(^|_)(SECRET|TOKEN|PASSWORD)(_|$)/.test(name) || name === 'SECRETS_KEY' || name === 'DATABASE_URL';
}

export interface AppListen {
  kind: 'http' | 'grpc';
  /** The edge's HTTP port or the service's gRPC port. */
  port: number;
  metricsPort: number;
  /** The interface the server binds: must be all interfaces in a container. */
  host: string;
}

/** Where the app listens, read from its parsed config (the same fields its server uses). */
export function listenOf(app: AppName, config: Record<string, unknown>): AppListen {
  const num = (k: string) => {
    const v = config[k];
    if (typeof v !== 'number') throw new Error(`${app}: config.${k} is not a number (${String(v)})`);
    return v;
  };
  return isEdge(app)
    ? { kind: 'http', port: num('port'), metricsPort: num('metricsPort'), host: String(config.host) }
    : { kind: 'grpc', port: num('grpcPort'), metricsPort: num('metricsPort'), host: String(config.grpcHost) };
}
