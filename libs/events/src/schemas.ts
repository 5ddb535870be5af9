import { EVENT_HEADERS, EVENT_TYPES, type EventType } from './envelope';

/**
 * JSON Schemas of the events the gateway emits: the spec 6.1 envelope `buildEvent` writes, and each event
 * type's payload (spec 6.2). One source for every description of them: the OpenAPI document's `webhooks`
 * (the bytes a tenant's webhook receives) and the AsyncAPI document of the bus (the same bytes on `EVENTS`).
 *
 * Written in the part of JSON Schema that draft 2020-12 (OpenAPI 3.1's dialect) and draft-07 (AsyncAPI 3.0's
 * default schema format) read alike: `type` (lists for nullable), `properties`, `required`, `enum`, `const`,
 * `additionalProperties`, single-schema `items`, `format`. No `$ref`, `$id` or `$schema`: each schema can be
 * copied into another document as it is. They are frozen; copy one (`structuredClone`) before changing it.
 *
 * What the gateway makes itself (the envelope and every payload but `chat`'s) is closed
 * (`additionalProperties: false`): a field added to the code without its schema fails the tests that pin
 * them. `chat`'s payload is the provider's body forwarded unchanged: its documented shape, open to the
 * provider's other fields.
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const nullableString = (description: string): JsonSchema => ({ type: ['string', 'null'], description });
const string = (description: string, extra: Record<string, unknown> = {}): JsonSchema => ({ type: 'string', description, ...extra });

/** `chat` (spec 6.2): the provider's webhook body (provider reference 7.4–7.7), as the provider sent it. */
const chatPayload: JsonSchema = {
  title: 'ChatPayload',
  description:
    "The provider's webhook body, forwarded unchanged: byte for byte when every change in it concerns this client, otherwise a body of the same shape holding only this client's entries and changes. Every inbound update (messages, statuses of sent messages, template and account updates, calls...) arrives this way; fields not listed here are the provider's and passed through. The types listed are the provider's documented ones: the gateway itself only ensures that `entry` is a list of objects, whose `changes`, when present, is a list of objects with a string `field` and an object `value`.",
  type: 'object',
  required: ['entry'],
  properties: {
    object: string("Always `whatsapp_business_account` for the provider's webhooks."),
    entry: {
      type: 'array',
      description: 'One entry per business account.',
      items: {
        type: 'object',
        properties: {
          id: string('Business account id (the values of account and template fields, which carry no `metadata`, belong to it).'),
          changes: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                field: string(
                  'What changed (provider-2026.md §8; every field is forwarded, unknown ones too): `messages` (inbound messages, statuses, system messages `user_changed_user_id`/`user_changed_number`), `message_template_status_update`, `message_template_quality_update`, `template_category_update`, `account_update`, `account_alerts`, `phone_number_quality_update`, `business_capability_update`, `user_preferences`, `standby`, `messaging_handovers` (the number in `value.recipient`), `smb_message_echoes`, `history`, `calls`...',
                ),
                value: {
                  type: 'object',
                  description: 'The change; its shape depends on `field`.',
                  properties: {
                    messaging_product: string('`whatsapp`.'),
                    metadata: {
                      type: 'object',
                      properties: {
                        phone_number_id: string('The provider phone number id the update concerns.'),
                        display_phone_number: string('That number, as displayed.'),
                      },
                    },
                    contacts: {
                      type: 'array',
                      description:
                        'The users the change concerns: `profile` (`name`, `username` of a username adopter), `wa_id` (only when the phone may be shared), `user_id` (the business-scoped user id, BSUID), `parent_user_id`.',
                      items: {
                        type: 'object',
                        properties: {
                          wa_id: string("The user's phone identifier, when the provider may share it."),
                          user_id: string("The user's business-scoped user id (BSUID, `US.…`): send to it with `recipient`."),
                          parent_user_id: string('The parent BSUID (`US.ENT.…`) of portfolios enrolled in a parent account.'),
                        },
                      },
                    },
                    messages: {
                      type: 'array',
                      description:
                        'Inbound messages: `from` (when the phone may be shared), `from_user_id` (BSUID), `id`, `timestamp` (epoch seconds as a string), `type`, and a content object named after the type (e.g. `text` with `body`).',
                      items: {
                        type: 'object',
                        properties: {
                          from: string("The sender's phone identifier (absent for a username adopter whose number is withheld)."),
                          from_user_id: string("The sender's business-scoped user id (BSUID)."),
                          id: string('Provider message id (`wamid.`...).'),
                          timestamp: string('Epoch seconds, as a string.'),
                          type: string('`text`, `image`, `interactive`, ...; the content object has this name.'),
                        },
                      },
                    },
                    statuses: {
                      type: 'array',
                      description: 'Status updates of messages sent through the gateway.',
                      items: {
                        type: 'object',
                        properties: {
                          id: string('Provider message id of the sent message.'),
                          status: string('`sent`, `delivered`, `read`, `played` (a voice message) or `failed`.'),
                          timestamp: string('Epoch seconds, as a string.'),
                          recipient_id: string("The recipient's phone identifier (absent for a send to a BSUID whose phone is withheld)."),
                          recipient_user_id: string("The recipient's business-scoped user id (BSUID)."),
                          pricing: {
                            type: 'object',
                            description:
                              'Per-message pricing: `billable`, `pricing_model` (`PMP`), `category` (`marketing`, `marketing_lite`, `utility`, `authentication`, `service`...), `type` (`regular`, `free_customer_service`, `free_entry_point`).',
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** Every event type's payload schema (spec 6.2), keyed by type. */
export const eventPayloadSchemas: Readonly<Record<EventType, JsonSchema>> = deepFreeze({
  chat: chatPayload,
  signup_completed: {
    title: 'SignupCompletedPayload',
    description: 'Sent once per client, after its embedded signup finished (code exchanged, number registered, webhook listener activated).',
    type: 'object',
    required: ['business_account_id', 'phone_number_id', 'catalog_id', 'provider_business_id', 'signup_status'],
    additionalProperties: false,
    properties: {
      business_account_id: string('Business account id.'),
      phone_number_id: string('Provider phone number id.'),
      catalog_id: nullableString('Commerce catalog id, if one was linked during signup.'),
      provider_business_id: nullableString('Business id associated with the business account.'),
      signup_status: { const: 'completed', description: 'Always `completed`.' },
    },
  },
  template_status: {
    title: 'TemplateStatusPayload',
    description: "A message template's review status changed at the provider (sent to every client of its business account).",
    type: 'object',
    required: ['template_id', 'template_name', 'language', 'status', 'reason'],
    additionalProperties: false,
    properties: {
      template_id: string("The provider's template id."),
      template_name: string('Template name.'),
      language: string('Locale code, e.g. `en_US`.'),
      status: string(
        "The provider's new status: `APPROVED`, `REJECTED`, `PAUSED`, `DISABLED`, `PENDING`, `IN_APPEAL`, ... (passed on as the provider sent it).",
      ),
      reason: nullableString('Why, when the template was rejected; null otherwise.'),
    },
  },
  flow_completion: {
    title: 'FlowCompletionPayload',
    description: 'A user submitted an interactive flow sent through the gateway.',
    type: 'object',
    required: ['message_id', 'from', 'token', 'response'],
    additionalProperties: false,
    properties: {
      message_id: string('Provider message id of the reply.'),
      from: string("The sender's phone identifier."),
      token: string('The flow token given when the flow was sent.'),
      response: { type: 'object', description: "The fields the flow collected (keys are the flow's own), without `flow_token`." },
    },
  },
  campaign_status: {
    title: 'CampaignStatusPayload',
    description: 'A campaign started (by `start` or at its `schedule_at`), was paused or resumed, completed, or was cancelled; with its counts then.',
    type: 'object',
    required: ['campaign_id', 'name', 'event', 'status', 'counts'],
    additionalProperties: false,
    properties: {
      campaign_id: string('The campaign id.', { format: 'uuid' }),
      name: string("The campaign's name."),
      event: { type: 'string', enum: ['started', 'paused', 'resumed', 'completed', 'cancelled'], description: 'What happened.' },
      status: { type: 'string', enum: ['running', 'paused', 'completed', 'cancelled'], description: "The campaign's status after it." },
      counts: {
        type: 'object',
        description: 'Recipients by status (`total` is their sum).',
        required: ['total', 'queued', 'sent', 'delivered', 'read', 'failed', 'skipped', 'deferred', 'unknown'],
        additionalProperties: false,
        properties: Object.fromEntries(
          ['total', 'queued', 'sent', 'delivered', 'read', 'failed', 'skipped', 'deferred', 'unknown'].map((k) => [k, { type: 'integer', minimum: 0 }]),
        ),
      },
    },
  },
  test: {
    title: 'TestPayload',
    description: 'A test event, requested from the dashboard or with `POST /api/clients/{id}/webhook/test`.',
    type: 'object',
    required: ['test', 'requested_at'],
    additionalProperties: false,
    properties: {
      test: { const: true },
      requested_at: string('When the test was requested (ISO 8601).', { format: 'date-time' }),
    },
  },
} satisfies Record<EventType, JsonSchema>);

const envelopeProperties = {
  client_id: string('UUID of the client the event concerns.', { format: 'uuid' }),
  external_id: nullableString("The client's own reference id (given at registration), or null."),
};

/** The spec 6.1 envelope of any event: `payload`'s shape depends on `type` (see `eventSchema`). */
export const eventEnvelopeSchema: JsonSchema = deepFreeze({
  title: 'EventEnvelope',
  description: 'Every event, as a webhook body and as a message on the EVENTS stream (spec 6.1).',
  type: 'object',
  required: ['type', 'client_id', 'external_id', 'payload'],
  additionalProperties: false,
  properties: {
    type: { type: 'string', enum: [...EVENT_TYPES], description: "The event type; names the payload's shape." },
    ...envelopeProperties,
    payload: { type: 'object', description: 'Depends on `type` (spec 6.2).' },
  },
});

const PAYLOAD_TITLES: Record<EventType, string> = {
  chat: 'ChatEvent',
  signup_completed: 'SignupCompletedEvent',
  template_status: 'TemplateStatusEvent',
  flow_completion: 'FlowCompletionEvent',
  test: 'TestEvent',
  campaign_status: 'CampaignStatusEvent',
};

/** The full envelope of one event type: `type` fixed, `payload` that type's schema (a fresh, unfrozen copy). */
export function eventSchema(type: EventType): JsonSchema {
  const payload = eventPayloadSchemas[type];
  if (!payload) throw new Error(`unknown event type: ${String(type)}`);
  return structuredClone({
    title: PAYLOAD_TITLES[type],
    description: `A \`${type}\` event (spec 6.1 envelope). ${String(payload.description ?? '')}`.trim(),
    type: 'object',
    required: ['type', 'client_id', 'external_id', 'payload'],
    additionalProperties: false,
    properties: {
      type: { const: type },
      ...envelopeProperties,
      payload,
    },
  });
}

/**
 * Headers every event carries on the bus (`EVENT_HEADERS`), so a consumer routes and dedupes without parsing
 * the body. Others may be present (`X-Request-Id`, `Nats-Msg-Id`, the dispatcher's `X-Delivery-Id`...).
 */
export const eventHeadersSchema: JsonSchema = deepFreeze({
  title: 'EventHeaders',
  type: 'object',
  required: Object.values(EVENT_HEADERS),
  properties: {
    [EVENT_HEADERS.id]: string(
      'The event id: the same on every delivery and redelivery of the event; dedupe on it. A UUID, except `signup_completed:<client id>` for the one signup event of a client.',
      { minLength: 1 },
    ),
    [EVENT_HEADERS.type]: { type: 'string', enum: [...EVENT_TYPES], description: "The envelope's `type`." },
    [EVENT_HEADERS.tenant]: string('UUID of the tenant owning the client.', { format: 'uuid' }),
    [EVENT_HEADERS.client]: string("UUID of the client (the envelope's `client_id`).", { format: 'uuid' }),
  },
});
