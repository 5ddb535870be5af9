export { ProviderClient } from './client';
export { connectProvider } from './connect';
export type { ProviderSettings } from './connect';
export { acceptCallBody, blockUsersBody, markReadBody } from './bodies';
export type { ProviderClientOptions, SendResult, BlockResult, FlowValidationError, ProviderFlow } from './client';
export type { ProviderCallObserver } from './http';
export { classifyProviderError, providerErrorInfo, isTransientProviderError, TRANSIENT_CODES } from './errors';
export type { ProviderErrorBody } from './errors';
