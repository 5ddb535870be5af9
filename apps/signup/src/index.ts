export { startSignup } from './server';
export type { RunningSignup } from './server';
export { readConfig } from './config';
export type { SignupConfig } from './config';
// for the whole-stack tests (tools/e2e), which read the service's rows
export { migrations } from './store/migrations';
