export { outboxMigration, enqueueEvent, startOutboxRelay } from './outbox';
export type { OutboxRelay } from './outbox';
