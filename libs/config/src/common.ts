import { bool, int, oneOf, optStr, str, url } from './config';

/** Fields every service process shares. Service configs spread these into their own spec. */
export const logLevel = oneOf('LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info');
export const natsUrl = str('NATS_URL', 'nats://127.0.0.1:4222');
export const databaseUrl = optStr('DATABASE_URL');
export const dataDir = str('DATA_DIR', './.data');
export const metricsPort = (fallback: number) => int('METRICS_PORT', fallback, { min: 0, max: 65535 });
export const grpcPort = (fallback: number) => int('GRPC_PORT', fallback, { min: 0, max: 65535 });
export const grpcHost = str('GRPC_HOST', '0.0.0.0');
export const providerBaseUrl = url('PROVIDER_BASE_URL', 'http://127.0.0.1:9090');
export const providerApiVersion = str('PROVIDER_API_VERSION', 'v21.0');
export const providerTimeoutMs = int('PROVIDER_TIMEOUT_MS', 10_000, { min: 100 });
export const secretsKey = optStr('SECRETS_KEY');
export const allowPrivateTargets = bool('WEBHOOK_ALLOW_PRIVATE_TARGETS', false);

/** Addresses of the gRPC services, as host:port. Defaults match `npm start`. */
export const serviceAddr = {
  tenantDirectory: str('TENANT_DIRECTORY_ADDR', '127.0.0.1:50051'),
  messaging: str('MESSAGING_ADDR', '127.0.0.1:50052'),
  flows: str('FLOWS_ADDR', '127.0.0.1:50053'),
  signup: str('SIGNUP_ADDR', '127.0.0.1:50054'),
  dispatcher: str('DISPATCHER_ADDR', '127.0.0.1:50055'),
};

/** Default gRPC and metrics ports per service (overridable with GRPC_PORT / METRICS_PORT). */
export const defaultPorts = {
  edge: { http: 8080, metrics: 9464 },
  'tenant-directory': { grpc: 50051, metrics: 9465 },
  messaging: { grpc: 50052, metrics: 9466 },
  flows: { grpc: 50053, metrics: 9467 },
  signup: { grpc: 50054, metrics: 9468 },
  dispatcher: { grpc: 50055, metrics: 9469 },
} as const;

/**
 * The fields every gRPC service with its own store reads: log level, bus, storage, its listen addresses
 * (default ports of `defaultPorts`). Spread into a service's config spec.
 */
export function grpcServiceFields(service: Exclude<keyof typeof defaultPorts, 'edge'>) {
  return {
    logLevel,
    natsUrl,
    databaseUrl,
    dataDir,
    grpcHost,
    grpcPort: grpcPort(defaultPorts[service].grpc),
    metricsPort: metricsPort(defaultPorts[service].metrics),
  };
}
