export { startProviderSim } from './server';
export type { ProviderSimOptions, RunningProviderSim } from './server';
export { SimState } from './state';
