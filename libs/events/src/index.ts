export { buildEvent, EVENT_TYPES, EVENT_HEADERS } from './envelope';
export type { EventType, GatewayEvent, EventInput } from './envelope';
