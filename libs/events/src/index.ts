export { buildEvent, DELIVERY_STATUSES, EVENT_TYPES, EVENT_HEADERS } from './envelope';
export type { DeliveryStatus, EventType, GatewayEvent, EventInput } from './envelope';
export { eventEnvelopeSchema, eventHeadersSchema, eventPayloadSchemas, eventSchema } from './schemas';
export type { JsonSchema } from './schemas';
export { CALL_STATUSES } from './call-statuses';
export type { CallStatus } from './call-statuses';
