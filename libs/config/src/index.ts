export { loadConfig, ConfigError, str, optStr, int, bool, url, intList, oneOf } from './config';
export type { Env, Field } from './config';
export * as common from './common';
