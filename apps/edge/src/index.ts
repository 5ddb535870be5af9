export { startEdge } from './server';
export type { RunningEdge } from './server';
export { readConfig } from './config';
export type { EdgeConfig } from './config';
