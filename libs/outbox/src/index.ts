export { outboxMigration, enqueueEvent, enqueueMessages, startOutboxRelay } from './outbox';
export type { OutboxRelay, OutboxMessage } from './outbox';
