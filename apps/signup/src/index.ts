export { startSignup } from './server';
export type { RunningSignup } from './server';
export { readConfig } from './config';
export type { SignupConfig } from './config';
