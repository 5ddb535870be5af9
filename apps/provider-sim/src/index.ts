export { startProviderSim } from './server';
export type { ProviderSimOptions, RunningProviderSim } from './server';
export { SimState } from './state';
export type { Onboarded } from './embedded-signup/onboarding';
