export { Stack, startStack, TEST_PLANS } from './stack';
export type { StackOptions, SimHandle } from './stack';
export { ApiClient } from './api-client';
export { checkAnswer } from './openapi-check';
export type { ApiResponse } from './api-client';
export { SERVICES } from './services';
export type { ServiceEntry, StartedService, Env } from './services';
export { spawnServiceProcess, bundleApp } from './process-service';
export type { ServiceProcess } from './process-service';
