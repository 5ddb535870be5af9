// Generated protobuf-es code for every contract in proto/, one namespace per package.
// Regenerate with `npm run proto:generate` (buf + protoc-gen-es from node_modules).
export * as health from './gen/grpc/health/v1/health_pb';
export * as tenantDirectory from './gen/tenant_directory/v1/tenant_directory_pb';
export * as messaging from './gen/messaging/v1/messaging_pb';
export * as dispatcher from './gen/dispatcher/v1/dispatcher_pb';
export * as signup from './gen/signup/v1/signup_pb';
export * as flows from './gen/flows/v1/flows_pb';
export * as templates from './gen/templates/v1/templates_pb';
export * as conversations from './gen/conversations/v1/conversations_pb';
export * as calls from './gen/calls/v1/calls_pb';
export * as business from './gen/business/v1/business_pb';
export * as campaigns from './gen/campaigns/v1/campaigns_pb';
