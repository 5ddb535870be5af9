export { startDispatcher, EVENTS_DURABLE, RETRIES_DURABLE } from './server';
export { DELIVERY_ID_HEADER, DELIVERY_SERIES_HEADER } from './delivery-worker';
export type { RunningDispatcher } from './server';
export { readConfig } from './config';
export type { DispatcherConfig } from './config';
export { isPublicAddress } from './address-policy';
