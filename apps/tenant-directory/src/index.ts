export { startTenantDirectory } from './server';
export type { RunningTenantDirectory } from './server';
export { readConfig } from './config';
export type { TenantDirectoryConfig } from './config';
