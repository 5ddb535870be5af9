import { bool, int, oneOf, optStr, str, url, type Field } from './config';
import { providerApiVersion } from './provider-versions';
import { grpcService, NATS, PROVIDER_SIM } from './services';

/** Fields every service process shares. Service configs spread these into their own spec. */
export const logLevel = oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info');
/** One server URL, or several separated by commas. */
export const natsUrl = str('NATS_URL', `nats://127.0.0.1:${NATS.port}`);
/** Replicas of the streams a process creates (and of their durable consumers); 3 on a 3-server cluster. */
export const jetstreamReplicas = int('JETSTREAM_REPLICAS', 1, { min: 1, max: 5 });
export const databaseUrl = optStr('DATABASE_URL');
/** With DATABASE_URL: frequent statements as named prepared statements (off behind PgBouncer < 1.21 in transaction mode). */
export const databasePreparedStatements = bool('DATABASE_PREPARED_STATEMENTS', true);
export const dataDir = str('DATA_DIR', './.data');
export const metricsPort = (fallback: number) => int('METRICS_PORT', fallback, { min: 0, max: 65535 });
export const grpcPort = (fallback: number) => int('GRPC_PORT', fallback, { min: 0, max: 65535 });
export const grpcHost = str('GRPC_HOST', '0.0.0.0');
export const providerBaseUrl = url('PROVIDER_BASE_URL', `http://127.0.0.1:${PROVIDER_SIM.port}`);
export { providerApiVersion };
export const providerTimeoutMs = int('PROVIDER_TIMEOUT_MS', 10_000, { min: 100 });

/** The gateway's version: the repository's `package.json` version (a test holds the two equal). */
export const GATEWAY_VERSION = '0.1.0';

/**
 * PROVIDER_USER_AGENT: the `User-Agent` of every request to the provider. Its media host answers a download without
 * one with a web page instead of the file (provider-2026.md §9), so there is always one: by default the gateway's
 * name and version.
 */
export const providerUserAgent: Field<string> = {
  key: 'PROVIDER_USER_AGENT',
  parse(raw) {
    if (raw === undefined) return `messaging-gateway/${GATEWAY_VERSION}`;
    if (!/^[\x21-\x7e][\x20-\x7e]{0,255}$/.test(raw)) throw new Error('must be 1-256 printable ASCII characters, not starting with a space');
    return raw;
  },
};
export const secretsKey = optStr('SECRETS_KEY');
export const allowPrivateTargets = bool('WEBHOOK_ALLOW_PRIVATE_TARGETS', false);

/** The address of a gRPC service (host:port), from its variable in the catalogue; the default matches `npm start`. */
export const serviceAddr = (name: string) => {
  const entry = grpcService(name);
  return str(entry.addrVar, `127.0.0.1:${entry.grpcPort}`);
};

/** The fields of a service that calls the provider's Graph API. */
export const providerFields = () => ({ providerBaseUrl, providerApiVersion, providerTimeoutMs, providerUserAgent });

/**
 * The fields every gRPC service with its own store reads: log level, bus, storage, its listen addresses
 * (default ports from the catalogue). Spread into a service's config spec.
 */
export function grpcServiceFields(service: string) {
  const entry = grpcService(service);
  return {
    logLevel,
    natsUrl,
    databaseUrl,
    databasePreparedStatements,
    dataDir,
    grpcHost,
    grpcPort: grpcPort(entry.grpcPort),
    metricsPort: metricsPort(entry.metricsPort),
  };
}
