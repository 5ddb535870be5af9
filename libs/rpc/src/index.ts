export { toGrpcServiceDefinition } from './service-definition';
export { startGrpcServer, defineService } from './server';
export type { CallContext, ServiceImpl, RegisteredService, GrpcServerOptions, RunningGrpcServer, CallObserver } from './server';
export { createServiceClient } from './client';
export type { ServiceClient, CallOptions, ClientOptions } from './client';
export { HealthReporter } from './health';
export { appErrorToGrpc, grpcToAppError } from './status';
export { defineTenantDataService } from './tenant-data';
export { defineUsageService } from './usage';
