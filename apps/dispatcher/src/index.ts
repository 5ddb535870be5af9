export { startDispatcher } from './server';
export type { RunningDispatcher } from './server';
export { readConfig } from './config';
export type { DispatcherConfig } from './config';
export { isPublicAddress } from './address-policy';
