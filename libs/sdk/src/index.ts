export { Gateway, GatewayError, idempotent, listAll, newIdempotencyKey, paginate } from './client';
export type { GatewayOptions, Page, ProviderError, Schemas, ValidationIssue } from './client';
export { verifyWebhook, WebhookVerificationError } from './webhooks';
export type { GatewayEvent } from './webhooks';
export type { components, operations, paths, webhooks } from './generated/openapi';
