export { buildEvent, DELIVERY_STATUSES, EVENT_TYPES, EVENT_HEADERS } from './envelope';
export type { DeliveryStatus, EventType, GatewayEvent, EventInput } from './envelope';
