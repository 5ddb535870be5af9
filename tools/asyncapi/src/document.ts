import { DELIVERY_ID_HEADER, DELIVERY_SERIES_HEADER, EVENTS_DURABLE, RETRIES_DURABLE } from '@gateway/app-dispatcher';
import { INBOUND_DURABLE, LIVE_NOTICE_SCHEMA } from '@gateway/app-messaging';
import {
  CONVERSATION_SUBJECT_PREFIX,
  DEAD_LETTER_HEADERS,
  DEAD_LETTER_SUBJECT_PREFIX,
  DEFAULT_MAX_DELIVER,
  DIRECTORY_CHANGE_SUBJECT_PREFIX,
  EVENT_SUBJECT_PREFIX,
  HEADER_BODY_SHA256,
  HEADER_REQUEST_ID,
  STREAMS,
  SUBJECT_PROVIDER_INBOUND,
  WEBHOOK_RETRY_SUBJECT_PREFIX,
  type StreamDefinition,
} from '@gateway/bus';
import { NATS } from '@gateway/config';
import { TRACEPARENT, TRACESTATE } from '@gateway/telemetry';
import { DIRECTORY_CHANGE_KINDS, directoryChangeMessage, directoryChangeSchema } from '@gateway/directory-changes';
import { buildEvent, EVENT_HEADERS, EVENT_TYPES, eventHeadersSchema, eventPayloadSchemas, eventSchema, type EventInput, type EventType } from '@gateway/events';
import { stringify } from 'yaml';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The AsyncAPI 3.0 document of the bus, built from the code that defines it: stream configurations
 * (`STREAMS`), subjects and header names (`@gateway/bus`, `@gateway/events`, the dispatcher's), and the
 * payload schemas (`@gateway/events`, `@gateway/directory-changes`). `asyncapi.yaml` at the repository root
 * is this document rendered (`npm run asyncapi:generate`); a test fails when the committed file is stale.
 */

export const ASYNCAPI_FILE = 'asyncapi.yaml';
const NATS_MSG_ID = 'Nats-Msg-Id';

type Obj = Record<string, unknown>;

const ref = (path: string) => ({ $ref: `#/${path}` });
const str = (description: string, extra: Obj = {}): Obj => ({ type: 'string', description, ...extra });

const SEC = 1e9;
/** The stream's configuration as the code sets it, for the channel's `x-jetstream` extension. */
function jetstream(s: StreamDefinition, consumers: Array<{ durable?: string; service: string; kind: string }>): Obj {
  return {
    stream: s.name,
    subjects: s.subjects,
    retention: s.retention,
    storage: s.storage,
    max_age_seconds: s.max_age / SEC,
    duplicate_window_seconds: s.duplicate_window / SEC,
    max_msg_size_bytes: s.max_msg_size,
    discard: s.discard,
    gateway_consumers: consumers,
  };
}

const REQUEST_ID_HEADER = str(
  "The request id of the API call or webhook that caused the message, when there was one (the same id as in the edge's `X-Request-Id` response header and the services' logs).",
);
/**
 * Headers `bus.publish` adds to every message it sends (whatever the subject): each message's header schema
 * includes them. A header added there (trace context...) is added here, or the integration test fails.
 */
const PUBLISH_HEADERS: Obj = {
  [HEADER_REQUEST_ID]: REQUEST_ID_HEADER,
  [TRACEPARENT]: str(
    'W3C Trace Context of the span that published the message, only when tracing is on (`OTEL_EXPORTER_OTLP_ENDPOINT`, docs/tracing.md): a consumer that continues it stays in the trace of the request or webhook that caused the message.',
    { pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' },
  ),
  [TRACESTATE]: str('W3C Trace Context vendor state, when the publishing span has any (tracing on).'),
};

/** NATS headers of an event of `type` on EVENTS (any type when undefined): `eventHeadersSchema` and the bus's own. */
function eventHeaders(type: EventType | undefined, extra: { required: string[]; properties: Obj }): Obj {
  const base = structuredClone(eventHeadersSchema) as { required: string[]; properties: Obj };
  if (type) base.properties[EVENT_HEADERS.type] = { const: type, description: "The envelope's `type`." };
  return {
    type: 'object',
    required: [...base.required, ...extra.required],
    additionalProperties: false,
    properties: { ...base.properties, ...extra.properties },
  };
}

/** The bus's headers on an event of `type` (the dispatcher's delivery id only on the `test` events it makes). */
const eventBusHeaders = (type: EventType) => ({
  required: type === 'test' ? [NATS_MSG_ID, DELIVERY_ID_HEADER] : [NATS_MSG_ID],
  properties: {
    [NATS_MSG_ID]: str(
      'JetStream de-duplication id: the event id (`X-Event-Id`), so a republished event is dropped by the stream within its duplicate window; `replay:<seq>` when an operator replayed it from DEAD_LETTER.',
    ),
    ...PUBLISH_HEADERS,
    ...(type === 'test'
      ? {
          [DELIVERY_ID_HEADER]: str('The webhook delivery record the dispatcher answered the test request with (internal to the dispatcher).', {
            format: 'uuid',
          }),
        }
      : {}),
  },
});

const RETRY_HEADERS = {
  required: [NATS_MSG_ID, DELIVERY_ID_HEADER, DELIVERY_SERIES_HEADER],
  properties: {
    [NATS_MSG_ID]: str('`retry-<delivery id>`; `replay:<seq>` when an operator replayed it from DEAD_LETTER.'),
    ...PUBLISH_HEADERS,
    [DELIVERY_ID_HEADER]: str('The new delivery record (attempt series) this redelivery is for.', { format: 'uuid' }),
    [DELIVERY_SERIES_HEADER]: str('The series number of that record for the event (1, 2, ...; the first delivery is 0).', { pattern: '^[0-9]+$' }),
  },
};

const TENANT_PARAM = { description: 'Tenant id (UUID).' };
const CLIENT_PARAM = { description: 'Client id (UUID).' };

const EVENT_NAMES: Record<EventType, string> = {
  chat: 'ChatEvent',
  signup_completed: 'SignupCompletedEvent',
  template_status: 'TemplateStatusEvent',
  flow_completion: 'FlowCompletionEvent',
  test: 'TestEvent',
  campaign_status: 'CampaignStatusEvent',
};
const camel = (type: string) => type.replace(/_(.)/g, (_m, c: string) => c.toUpperCase());

/** Example events, made by `buildEvent` like the services make them (fixed ids and times: the file is deterministic). */
const EXAMPLE_TENANT = '5b0c7a2e-8a51-4d8e-9a43-0f3c2d1e6b77';
const EXAMPLE_CLIENT = '0e9f6c1a-3b7d-4c2e-8f5a-6d4b2a1c9e88';
const EXAMPLE_PROVIDER_BODY = {
  object: 'whatsapp_business_account',
  entry: [
    {
      id: '102290129340398',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'whatsapp',
            metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
            contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
            messages: [
              {
                from: '16505551234',
                id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                timestamp: '1749416383',
                type: 'text',
                text: { body: 'Does it come in another color?' },
              },
            ],
          },
        },
      ],
    },
  ],
};
const EXAMPLE_PAYLOADS: Record<EventType, EventInput['payload']> = {
  chat: { raw: JSON.stringify(EXAMPLE_PROVIDER_BODY) },
  signup_completed: {
    business_account_id: '102290129340398',
    phone_number_id: '106540352242922',
    catalog_id: null,
    provider_business_id: '2729063490586005',
    signup_status: 'completed',
  },
  template_status: { template_id: '806312974732579', template_name: 'order_confirmation', language: 'en_US', status: 'APPROVED', reason: null },
  flow_completion: {
    message_id: 'wamid.HBgLMTY0NjcwNDM1OTUVAgASGBQzQUFFQjg5QjRGNzk3NjI1NUE1RQA=',
    from: '16505551234',
    token: 'booking-42',
    response: { date: '2026-12-01', guests: 2 },
  },
  test: { test: true, requested_at: '2026-11-23T12:00:00.000Z' },
  campaign_status: {
    campaign_id: '7d1e2f3a-4b5c-4d6e-8f7a-9b0c1d2e3f4a',
    name: 'Spring sale',
    event: 'completed',
    status: 'completed',
    counts: { total: 3, queued: 0, sent: 0, delivered: 1, read: 1, failed: 0, skipped: 1, deferred: 0, unknown: 0 },
  },
};
const EXAMPLE_EVENT_IDS: Record<EventType, string> = {
  chat: '3f2b8c1d-7e4a-5b6c-9d8e-0f1a2b3c4d5e',
  signup_completed: `signup_completed:${EXAMPLE_CLIENT}`,
  template_status: '9a8b7c6d-5e4f-5a3b-8c2d-1e0f9a8b7c6d',
  flow_completion: '1c2d3e4f-5a6b-5c7d-8e9f-0a1b2c3d4e5f',
  test: 'c0ffee00-1234-4abc-8def-0123456789ab',
  campaign_status: '5e6f7a8b-9c0d-5e1f-8a2b-3c4d5e6f7a8b',
};

function exampleEvent(type: EventType) {
  const e = buildEvent({
    type,
    tenantId: EXAMPLE_TENANT,
    clientId: EXAMPLE_CLIENT,
    externalId: 'crm-7',
    payload: EXAMPLE_PAYLOADS[type],
    id: EXAMPLE_EVENT_IDS[type],
  });
  // the dispatcher names the delivery record of the test events it makes
  const delivery = type === 'test' ? { [DELIVERY_ID_HEADER]: '6a0f4c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b' } : {};
  return { subject: e.subject, headers: { ...e.headers, [NATS_MSG_ID]: e.id, ...delivery }, payload: JSON.parse(e.body) as unknown };
}

const CONSUMER_ADVICE = `
## Consuming these subjects

Platform teams may read the gateway's streams; only the gateway's own services write to them.

- **Events**: read the \`EVENTS\` stream (subjects \`${EVENT_SUBJECT_PREFIX}.<type>.<tenant_id>.<client_id>\`). Its bodies are the
  exact bytes a tenant's webhook receives (the spec 6.1 envelope; the same schemas as the OpenAPI document's \`webhooks\`).
  Filter by type or tenant with the subject (\`${EVENT_SUBJECT_PREFIX}.chat.>\`, \`${EVENT_SUBJECT_PREFIX}.*.<tenant_id>.>\`) and route with the
  headers, without parsing the body.
- **Use your own durable consumer** (pull, \`ack_policy: explicit\`, a \`durable_name\` of your team's), created on
  \`EVENTS\` with a \`filter_subject\`. Never attach to the gateway's own durables (listed under \`x-jetstream.gateway_consumers\`
  of each channel): a message acked by you would be lost to the gateway, and the reverse. \`EVENTS\` is a limits stream (kept
  ${STREAMS.events.max_age / SEC / 86400} days, whoever acks), so each consumer reads every message independently; a new consumer can start from a time
  (\`deliver_policy: by_start_time\`) to catch up.
- **Dedupe on \`X-Event-Id\`**. Delivery is at least once: JetStream redelivers what you did not ack in time, and the
  gateway publishes the same event again with the same id (after a crash of the outbox relay, or when the provider
  redelivers an inbound body after the stream's de-duplication window). Ids are stable per event: a UUID derived from
  the provider body for \`chat\`, \`flow_completion\` and \`template_status\`, \`signup_completed:<client_id>\` for the one
  signup event of a client, a random UUID for \`test\`.
- **Bound redeliveries**: set \`max_deliver\` and \`ack_wait\` (the gateway's consumers give a message ${DEFAULT_MAX_DELIVER} deliveries); a message still failing on
  its last delivery should go to \`DEAD_LETTER\` as \`${DEAD_LETTER_SUBJECT_PREFIX}.<source stream>\` with the original headers and the
  \`X-Dead-Letter-*\` headers below (\`runConsumer\` of \`@gateway/bus\` does this), so it can be inspected and replayed
  instead of looping or being dropped. Treat a body you cannot use as data (count it, ack it), not as an exception.
- Order is per subject only, and even there a redelivery can overtake; use the provider's timestamps inside \`chat\`
  payloads to order a conversation.
- Do not consume \`WEBHOOK_RETRIES\`: it holds the dispatcher's manual redeliveries of events already on \`EVENTS\`.
  \`PROVIDER_INBOUND\` holds the provider's raw bodies before routing (including updates that belong to no client);
  prefer the per-client \`chat\` events.
- Headers a message carries are exactly those listed for it; \`X-Request-Id\` ties a message to the API call or
  webhook that caused it, and to the services' log lines.
`;

/** The repository root (where package.json and asyncapi.yaml are), from this file's place in it. */
export const REPO_ROOT = join(__dirname, '../../..');

export function buildAsyncApiDocument(root = REPO_ROOT): Obj {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const schemas: Obj = {
    // what the edge stores: any signed JSON object with an `entry` list (the provider's shape is ChatEvent's payload;
    // a body messaging cannot route is dead-lettered there, not refused here)
    ProviderWebhookBody: {
      title: 'ProviderWebhookBody',
      description:
        "A JSON object with an `entry` list, as the provider POSTed it (signature checked). The provider's documented shape is the `chat` event's payload; the edge checks only that `entry` is a list, so routing copes with anything else in it (a body it cannot use at all is dead-lettered).",
      type: 'object',
      required: ['entry'],
      properties: { entry: { type: 'array', description: "The provider's entries (see ChatEvent's payload)." } },
    },
    DirectoryChange: structuredClone(directoryChangeSchema),
  };
  for (const type of EVENT_TYPES) schemas[EVENT_NAMES[type]] = eventSchema(type);

  const messages: Obj = {};
  const channels: Obj = {};
  const operations: Obj = {};

  messages.ProviderWebhook = {
    name: 'ProviderWebhook',
    title: 'Provider webhook body',
    summary: 'A webhook POST of the provider, as received and signature-checked by the edge.',
    description:
      'The raw bytes of the POST body (a JSON object with an `entry` list; the edge refuses anything else), unchanged and unsplit. The messaging service routes it to clients and publishes the events.',
    contentType: 'application/json',
    headers: {
      type: 'object',
      required: [HEADER_BODY_SHA256, NATS_MSG_ID, HEADER_REQUEST_ID],
      additionalProperties: false,
      properties: {
        [HEADER_BODY_SHA256]: str('Hex SHA-256 of the body.', { pattern: '^[0-9a-f]{64}$' }),
        [NATS_MSG_ID]: str(
          "The same digest, so the provider's redeliveries of a body within the duplicate window are dropped by the stream; `replay:<seq>` when an operator replayed it from DEAD_LETTER.",
          { pattern: '^([0-9a-f]{64}|replay:[0-9]+)$' },
        ),
        ...PUBLISH_HEADERS,
        [HEADER_REQUEST_ID]: str("The request id of the provider's POST to the edge."),
      },
    },
    payload: ref('components/schemas/ProviderWebhookBody'),
    correlationId: { location: `$message.header#/${HEADER_REQUEST_ID}` },
  };
  channels.providerInbound = {
    address: SUBJECT_PROVIDER_INBOUND,
    title: 'Inbound provider webhooks',
    description:
      'Written by the edge for every signed provider webhook POST before it answers the provider; read by the messaging service, which turns each body into events.',
    messages: { providerWebhook: ref('components/messages/ProviderWebhook') },
    'x-jetstream': jetstream(STREAMS.providerInbound, [{ durable: INBOUND_DURABLE, service: 'messaging', kind: 'durable pull' }]),
  };
  operations.receiveProviderWebhook = {
    action: 'send',
    title: 'The edge stores an inbound provider webhook',
    channel: ref('channels/providerInbound'),
    messages: [ref('channels/providerInbound/messages/providerWebhook')],
  };

  const eventsConsumers = [{ durable: EVENTS_DURABLE, service: 'dispatcher', kind: 'durable pull (webhook delivery)' }];
  for (const type of EVENT_TYPES) {
    const name = EVENT_NAMES[type];
    const example = exampleEvent(type);
    messages[name] = {
      name,
      title: `${type} event`,
      summary: `A ${type} event: the spec 6.1 envelope, the exact bytes a webhook receiver gets.`,
      description: String(eventPayloadSchemas[type].description ?? ''),
      contentType: 'application/json',
      headers: eventHeaders(type, eventBusHeaders(type)),
      payload: ref(`components/schemas/${name}`),
      correlationId: { location: `$message.header#/${EVENT_HEADERS.id}` },
      examples: [{ name: `${type}-example`, summary: `A ${type} event on ${example.subject}`, headers: example.headers, payload: example.payload }],
    };
    const channel = `${camel(type)}Events`;
    channels[channel] = {
      address: `${EVENT_SUBJECT_PREFIX}.${type}.{tenantId}.{clientId}`,
      title: `${type} events`,
      description: `\`${type}\` events (stream EVENTS). Subscribe to \`${EVENT_SUBJECT_PREFIX}.${type}.>\` for every tenant, \`${EVENT_SUBJECT_PREFIX}.${type}.<tenant_id>.>\` for one.`,
      parameters: { tenantId: ref('components/parameters/tenantId'), clientId: ref('components/parameters/clientId') },
      messages: { [camel(type)]: ref(`components/messages/${name}`) },
      'x-jetstream': jetstream(STREAMS.events, eventsConsumers),
    };
    operations[`publish${name}`] = {
      action: 'send',
      title: `The gateway publishes a ${type} event`,
      channel: ref(`channels/${channel}`),
      messages: [ref(`channels/${channel}/messages/${camel(type)}`)],
    };
  }

  messages.EventRedelivery = {
    name: 'EventRedelivery',
    title: 'Manual redelivery of an event',
    summary: "An event already published on EVENTS, sent again to one client's webhook (a retry or bulk replay of a delivery).",
    description:
      'The same bytes and `X-Event-Id` as the original event, with the delivery record it is for. Read by the dispatcher only; internal consumers of EVENTS already saw the event.',
    contentType: 'application/json',
    headers: eventHeaders(undefined, RETRY_HEADERS),
    payload: { oneOf: EVENT_TYPES.map((t) => ref(`components/schemas/${EVENT_NAMES[t]}`)) },
    correlationId: { location: `$message.header#/${EVENT_HEADERS.id}` },
  };
  channels.webhookRetries = {
    address: `${WEBHOOK_RETRY_SUBJECT_PREFIX}.{tenantId}.{clientId}`,
    title: 'Webhook redeliveries',
    description: 'Kept apart from EVENTS so that internal consumers never see an event twice. Do not consume.',
    parameters: { tenantId: ref('components/parameters/tenantId'), clientId: ref('components/parameters/clientId') },
    messages: { eventRedelivery: ref('components/messages/EventRedelivery') },
    'x-jetstream': jetstream(STREAMS.webhookRetries, [{ durable: RETRIES_DURABLE, service: 'dispatcher', kind: 'durable pull (webhook delivery)' }]),
  };
  operations.publishEventRedelivery = {
    action: 'send',
    title: 'The dispatcher queues a manual redelivery',
    channel: ref('channels/webhookRetries'),
    messages: [ref('channels/webhookRetries/messages/eventRedelivery')],
  };

  const dl = DEAD_LETTER_HEADERS;
  messages.DeadLetter = {
    name: 'DeadLetter',
    title: 'Dead letter',
    summary: 'A message a durable consumer still could not handle on its last delivery.',
    description:
      "The original message's bytes (whatever its stream carries: possibly not JSON at all, for a provider body that could not be used) and its original headers (`Nats-*` ones excepted), plus the `X-Dead-Letter-*` headers. Listed and replayed by operators through the admin API (`/admin/dead-letters`, docs/webhooks.md).",
    headers: {
      type: 'object',
      required: [dl.stream, dl.subject, dl.seq, dl.consumer, dl.deliveries, dl.error, dl.at, NATS_MSG_ID],
      additionalProperties: { type: 'string', description: "The original message's headers." },
      properties: {
        [dl.stream]: {
          type: 'string',
          enum: [STREAMS.providerInbound.name, STREAMS.events.name, STREAMS.webhookRetries.name],
          description: 'The stream the message came from.',
        },
        [dl.subject]: str('Its subject there.'),
        [dl.seq]: str('Its sequence there.', { pattern: '^[0-9]+$' }),
        [dl.consumer]: str('The durable consumer that gave up.'),
        [dl.deliveries]: str('How many deliveries it had.', { pattern: '^[0-9]+$' }),
        [dl.error]: str('The last error, one line, at most 500 characters.'),
        [dl.at]: str('When it was dead-lettered (ISO 8601).', { format: 'date-time' }),
        [NATS_MSG_ID]: str('`<stream>:<consumer>:<seq>`: a message is dead-lettered once per consumer.'),
      },
    },
    payload: { description: 'The original message body, byte for byte.' },
  };
  channels.deadLetter = {
    address: `${DEAD_LETTER_SUBJECT_PREFIX}.{sourceStream}`,
    title: 'Dead letters',
    description: 'Kept 30 days, for an operator to notice, fix the cause and replay (to the original subject).',
    parameters: {
      sourceStream: {
        enum: [STREAMS.providerInbound.name, STREAMS.events.name, STREAMS.webhookRetries.name],
        description: 'The stream the message came from.',
      },
    },
    messages: { deadLetter: ref('components/messages/DeadLetter') },
    'x-jetstream': jetstream(STREAMS.deadLetter, []),
  };
  operations.publishDeadLetter = {
    action: 'send',
    title: 'A durable consumer sets a message aside',
    channel: ref('channels/deadLetter'),
    messages: [ref('channels/deadLetter/messages/deadLetter')],
  };

  const change = directoryChangeMessage({
    kind: 'client',
    tenantId: EXAMPLE_TENANT,
    clientId: EXAMPLE_CLIENT,
    phoneNumberIds: ['106540352242922'],
    businessAccountIds: ['102290129340398'],
  });
  messages.DirectoryChange = {
    name: 'DirectoryChange',
    title: 'Tenant directory change notice',
    summary: 'Something other services cache changed in the tenant directory.',
    description:
      'Written by the tenant directory in the transaction of the change (through its outbox); read from "now" by every process that caches directory data (an ordered consumer each), which drops the entries the notice names.',
    contentType: 'application/json',
    headers: {
      type: 'object',
      required: [NATS_MSG_ID],
      additionalProperties: false,
      properties: { [NATS_MSG_ID]: str('`change-<uuid>`.'), ...PUBLISH_HEADERS },
    },
    payload: ref('components/schemas/DirectoryChange'),
    examples: [
      { name: 'client-change', headers: { [NATS_MSG_ID]: 'change-7d1f0c2e-4b3a-4e5f-9a8b-1c2d3e4f5a6b' }, payload: JSON.parse(change.body) as unknown },
    ],
  };
  channels.directoryChanges = {
    address: `${DIRECTORY_CHANGE_SUBJECT_PREFIX}.{kind}.{tenantId}`,
    title: 'Directory change notices',
    description:
      'A notice matters for seconds (kept an hour). Read with an ordered consumer from "now"; after a reconnect, drop every cached entry (notices may have been missed).',
    parameters: { kind: { enum: [...DIRECTORY_CHANGE_KINDS], description: 'What changed.' }, tenantId: ref('components/parameters/tenantId') },
    messages: { directoryChange: ref('components/messages/DirectoryChange') },
    'x-jetstream': jetstream(STREAMS.directoryChanges, [{ service: 'edge, messaging, dispatcher', kind: 'ordered (one per process)' }]),
  };
  operations.publishDirectoryChange = {
    action: 'send',
    title: 'The tenant directory announces a change',
    channel: ref('channels/directoryChanges'),
    messages: [ref('channels/directoryChanges/messages/directoryChange')],
  };

  schemas.LiveNotice = LIVE_NOTICE_SCHEMA;
  messages.LiveNotice = {
    name: 'LiveNotice',
    title: 'Live conversation notice',
    summary: "A client's message was stored or changed status (issue 27).",
    description:
      'Published by the messaging service when it stores an inbound message, a send or an echo, and when a send changes status. Every edge replica ' +
      'reads it for its open `GET /api/stream` connections (an ordered consumer per connection, from "now" or from the Last-Event-ID + 1) and ' +
      'answers the Server-Sent Event `message` or `status` whose `data` is `{"message": Message}` (the OpenAPI `Message` record, read through the ' +
      "messaging service) and whose `id` is this message's stream sequence.",
    contentType: 'application/json',
    headers: {
      type: 'object',
      required: [NATS_MSG_ID],
      additionalProperties: false,
      properties: { [NATS_MSG_ID]: str('`<type>:<message_id>:<status>`: the same notice written twice is dropped.'), ...PUBLISH_HEADERS },
    },
    payload: ref('components/schemas/LiveNotice'),
    examples: [
      {
        name: 'inbound-message',
        headers: { [NATS_MSG_ID]: 'message:wamid.HBgLMTY1MDU1NTEyMzQVAgASGBQzQUZCMzQ1:received' },
        payload: {
          type: 'message',
          message_id: 'wamid.HBgLMTY1MDU1NTEyMzQVAgASGBQzQUZCMzQ1',
          contact_id: '0b9c7a52-5a8e-4f55-9c1d-2f4b8e7d6a10',
          direction: 'in',
          status: 'received',
        },
      },
    ],
  };
  channels.conversations = {
    address: `${CONVERSATION_SUBJECT_PREFIX}.{tenantId}.{clientId}`,
    title: 'Live conversation notices',
    description: 'Small notices (ids and a status) for the live stream; kept a day, the longest a stream can resume with Last-Event-ID.',
    parameters: { tenantId: ref('components/parameters/tenantId'), clientId: ref('components/parameters/clientId') },
    messages: { liveNotice: ref('components/messages/LiveNotice') },
    'x-jetstream': jetstream(STREAMS.conversations, [{ service: 'edge', kind: 'ordered (one per open GET /api/stream)' }]),
  };
  operations.publishLiveNotice = {
    action: 'send',
    title: 'The messaging service tells the live streams of a stored message or status',
    channel: ref('channels/conversations'),
    messages: [ref('channels/conversations/messages/liveNotice')],
  };

  return {
    asyncapi: '3.0.0',
    info: {
      title: 'Messaging gateway: NATS JetStream bus',
      version: pkg.version,
      description: `The streams, subjects, headers and message bodies of the gateway's JetStream bus, for internal consumers. Generated from the code (tools/asyncapi); the event schemas are the same as the OpenAPI document's \`webhooks\`.\n${CONSUMER_ADVICE}`,
    },
    defaultContentType: 'application/json',
    servers: {
      nats: {
        host: `localhost:${NATS.port}`,
        protocol: 'nats',
        description: "The deployment's NATS server (NATS_URL of every service); JetStream enabled.",
      },
    },
    channels,
    operations,
    components: {
      schemas,
      messages,
      parameters: { tenantId: TENANT_PARAM, clientId: CLIENT_PARAM },
    },
  };
}

/** The document as committed in `asyncapi.yaml`. */
export function renderAsyncApiYaml(root = REPO_ROOT): string {
  const header = '# Generated from the code by `npm run asyncapi:generate` (tools/asyncapi/src/document.ts): do not edit by hand.\n';
  return header + stringify(buildAsyncApiDocument(root), { lineWidth: 0, aliasDuplicateObjects: false });
}
