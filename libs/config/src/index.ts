export { loadConfig, ConfigError, str, optStr, int, bool, url, intList, oneOf } from './config';
export type { Env, Field } from './config';
export * as common from './common';
export { APP_NAMES, EDGE, GRPC_SERVICES, NATS, PROVIDER_SIM, grpcService, natsServerConf, nodeOptionsOf, v8EnvOf } from './services';
export type { GrpcServiceEntry, HttpEntry } from './services';
export { PROVIDER_API_VERSIONS, DEFAULT_PROVIDER_API_VERSION, providerApiVersionInfo } from './provider-versions';
export type { ProviderApiVersionInfo } from './provider-versions';
