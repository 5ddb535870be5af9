export { createLogger, redactPaths } from './logger';
export { SECRET_FIELDS, isSecretField } from './secret-fields';
export type { Logger, CreateLoggerOptions } from './logger';
export { runWithContext, currentContext, currentRequestId, normalizeRequestId, REQUEST_ID_HEADER } from './context';
export type { RequestContext } from './context';
