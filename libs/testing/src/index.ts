export { freePort, waitFor } from './ports';
export { startNatsServer, natsServerBinary } from './nats-server';
export type { TestNatsServer } from './nats-server';
export { postgresServerUrl, createTestDatabase, tempDir } from './database';
export type { TestDatabase, TempDir } from './database';
export { dbTarget } from './db-target';
export type { DbTarget } from './db-target';
export { startWebhookReceiver } from './webhook-receiver';
export type { WebhookReceiver, ReceivedWebhook, ReceiverReply } from './webhook-receiver';
