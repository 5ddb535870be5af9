export { startFlows } from './server';
export type { RunningFlows } from './server';
export { readConfig } from './config';
export type { FlowsConfig } from './config';
export { SqlFlowRepository } from './store/repository';
export type { FlowRepository, FlowRecord, FlowKey, FlowStatus } from './store/repository';
