export { connectBus, ensureStream, headerValue, HEADER_BODY_SHA256, HEADER_REQUEST_ID, JetStreamPublishError } from './bus';
export type { Bus, ConnectBusOptions } from './bus';
export { runConsumer, ensureConsumer, ACK, TERM, nakAfter, deadLetterNow, DEFAULT_MAX_DELIVER } from './consumer';
export { deadLetter, listDeadLetters, pageDeadLetters, replayDeadLetters, DEAD_LETTER_HEADERS } from './dead-letter';
export type { DeadLetter, DeadLetterFilter, DeadLetterPage } from './dead-letter';
export type { Outcome, RunConsumerOptions, RunningConsumer, ConsumerLagObserver } from './consumer';
export {
  STREAMS,
  MAX_MESSAGE_BYTES,
  MAX_WEBHOOK_BODY_BYTES,
  SUBJECT_PROVIDER_INBOUND,
  EVENT_SUBJECT_PREFIX,
  eventSubject,
  WEBHOOK_RETRY_SUBJECT_PREFIX,
  webhookRetrySubject,
  DEAD_LETTER_SUBJECT_PREFIX,
  deadLetterSubject,
  DIRECTORY_CHANGE_SUBJECT_PREFIX,
  directoryChangeSubject,
  CONVERSATION_SUBJECT_PREFIX,
  conversationSubject,
} from './streams';
export type { StreamDefinition } from './streams';
