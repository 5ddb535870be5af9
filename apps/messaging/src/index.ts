export { startMessaging } from './server';
export { INBOUND_DURABLE } from './inbound/inbound-consumer';
export type { RunningMessaging } from './server';
export { readConfig } from './config';
export type { MessagingConfig } from './config';
export { SqlMessageRepository } from './store/messages';
export type { MessageRepository, MessageRecord, MessageStatus, StatusChange } from './store/messages';
export { LIVE_NOTICE_SCHEMA } from './live';
export type { LiveNotice } from './live';
