import { DiscardPolicy, RetentionPolicy, StorageType, nanos, type StreamConfig } from 'nats';
import { NATS } from '@gateway/config';

/**
 * The bus layout, shared by every service so producers and consumers agree on names.
 *
 * PROVIDER_INBOUND  provider.inbound.webhook          raw, signature-checked provider webhook bodies (edge → messaging)
 * EVENTS            events.<type>.<tenant>.<client>   gateway events with the spec 6.1 envelope (→ dispatcher, internal consumers)
 * WEBHOOK_RETRIES   webhook.retry.<tenant>.<client>   manual redeliveries of an event to one client's webhook (dispatcher only),
 *                                                     kept apart so internal consumers of EVENTS never see an event twice
 * DEAD_LETTER       dead_letter.<source stream>       messages a durable consumer still failed after its last delivery, with
 *                                                     their original headers and the error (see dead-letter.ts); replayable
 * DIRECTORY_CHANGES directory.changed.<kind>.<tenant> change notices of the tenant directory (→ every process caching its data)
 * CONVERSATIONS     conversations.<tenant>.<client>   a client's new messages and status changes (messaging → every edge's
 *                                                     live stream, GET /api/stream); a day kept for Last-Event-ID resumes
 */
export const SUBJECT_PROVIDER_INBOUND = 'provider.inbound.webhook';
export const EVENT_SUBJECT_PREFIX = 'events';
export const WEBHOOK_RETRY_SUBJECT_PREFIX = 'webhook.retry';
export const DEAD_LETTER_SUBJECT_PREFIX = 'dead_letter';

export function deadLetterSubject(sourceStream: string): string {
  return `${DEAD_LETTER_SUBJECT_PREFIX}.${sourceStream}`;
}

export function webhookRetrySubject(tenantId: string, clientId: string): string {
  return `${WEBHOOK_RETRY_SUBJECT_PREFIX}.${tenantId}.${clientId}`;
}

export const DIRECTORY_CHANGE_SUBJECT_PREFIX = 'directory.changed';

export function directoryChangeSubject(kind: string, tenantId: string): string {
  return `${DIRECTORY_CHANGE_SUBJECT_PREFIX}.${kind}.${tenantId}`;
}

export const CONVERSATION_SUBJECT_PREFIX = 'conversations';

export function conversationSubject(tenantId: string, clientId: string): string {
  return `${CONVERSATION_SUBJECT_PREFIX}.${tenantId}.${clientId}`;
}

export function eventSubject(type: string, tenantId: string, clientId: string): string {
  return `${EVENT_SUBJECT_PREFIX}.${type}.${tenantId}.${clientId}`;
}

const DAY_MS = 24 * 3600_000;

/**
 * The largest message on the bus: nats-server's max_payload as the gateway runs it (NATS.maxPayload of
 * @gateway/config; the server's default of 1 MB is raised everywhere it is started or deployed). A provider
 * webhook body travels PROVIDER_INBOUND as it came, then EVENTS (a `chat` event splices it into the envelope
 * unchanged) and WEBHOOK_RETRIES, or DEAD_LETTER with a few headers more: each a message of the body's size and
 * a little more.
 */
export const MAX_MESSAGE_BYTES = NATS.maxPayload;
/** The largest provider body that still fits one message with its event envelope and headers (at most 3 MB is documented). */
export const MAX_WEBHOOK_BODY_BYTES = MAX_MESSAGE_BYTES - 64 * 1024;

/** A stream of gateway-made messages: a week of retention, file storage, repeats of a Nats-Msg-Id dropped for 10 min. */
function gatewayStream(name: string, subject: string) {
  return {
    name,
    subjects: [subject],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: nanos(7 * DAY_MS),
    duplicate_window: nanos(10 * 60_000),
    max_msg_size: MAX_MESSAGE_BYTES,
    discard: DiscardPolicy.Old,
  };
}

export const STREAMS = {
  providerInbound: {
    name: 'PROVIDER_INBOUND',
    subjects: ['provider.inbound.>'],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    // the provider retries for days; keep a week so nothing is lost while a consumer is down
    max_age: nanos(7 * DAY_MS),
    // the provider redelivers the same body; Nats-Msg-Id (a hash of the body) drops repeats
    duplicate_window: nanos(30 * 60_000),
    max_msg_size: MAX_MESSAGE_BYTES,
    discard: DiscardPolicy.Old,
  },
  events: gatewayStream('EVENTS', 'events.>'),
  webhookRetries: gatewayStream('WEBHOOK_RETRIES', 'webhook.retry.>'),
  // kept a month: long enough for an operator to notice, fix the cause and replay
  deadLetter: { ...gatewayStream('DEAD_LETTER', 'dead_letter.>'), max_age: nanos(30 * DAY_MS) },
  // read from "now" by every process that caches directory data; a notice matters for seconds, so an hour is ample
  directoryChanges: { ...gatewayStream('DIRECTORY_CHANGES', 'directory.changed.>'), max_age: nanos(3600_000), max_msg_size: 64 * 1024 },
  // small notices (ids and a status), read from a position by each open stream: a day is the longest resume
  conversations: { ...gatewayStream('CONVERSATIONS', 'conversations.>'), max_age: nanos(DAY_MS), max_msg_size: 64 * 1024 },
} satisfies Record<string, Partial<StreamConfig> & { name: string; subjects: string[] }>;

export type StreamDefinition = (typeof STREAMS)[keyof typeof STREAMS];
