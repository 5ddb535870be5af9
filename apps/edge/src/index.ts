export { startEdge } from './server';
export type { RunningEdge } from './server';
export type { RouteInfo } from './app';
export { readConfig } from './config';
export type { EdgeConfig } from './config';
