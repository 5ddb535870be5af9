export { runMain } from './main';
export type { RunningProcess } from './main';
export { Metrics, startMetricsServer } from './metrics';
export type { MetricsServer, ProviderCallReport, ConsumerLagReport } from './metrics';
export { LookupCache } from './lookup-cache';
export type { LookupCacheOptions } from './lookup-cache';
export { deadline } from './deadline';
export { listen } from './listen';
