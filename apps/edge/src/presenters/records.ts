import type { DeadLetter as BusDeadLetter } from '@gateway/bus';
import {
  business as bz,
  calls as cl,
  conversations as cv,
  dispatcher as d,
  flows as fl,
  messaging as m,
  templates as tp,
  tenantDirectory as td,
} from '@gateway/contracts';
import { CALL_STATUSES, DELIVERY_STATUSES, EVENT_TYPES } from '@gateway/events';
import type { JsonSchema } from '../openapi/operation';
import { Campaign, CampaignRecipient, OptOut } from './campaigns';
import { field, nested, shape, type AnyPresenter } from './presenter';
import { nullable, record } from './proto-record';

/*
 * The records the API answers, each a component schema of the OpenAPI document under its name: what a record
 * leaves out of, replaces in or adds to its proto message is said here once, schema and value together.
 */

const parsed = (text: string): unknown => JSON.parse(text) as unknown;
const anyJson: JsonSchema = { description: 'Any JSON value.' };
const anyObject: JsonSchema = { type: 'object', additionalProperties: true };

/** Tenant record of spec 2.1. */
export const Tenant = record(td.TenantSchema, {
  name: 'Tenant',
  omit: ['suspended_at'],
  secrets: ['webhook_secret'],
  describe: { webhook_secret: 'Signs every webhook (`whsec_…`).', created_at: 'ISO 8601.' },
});

/** A tenant as the operator sees it (`/admin/tenants`): the spec's record and whether it is suspended. */
export const AdminTenant = record(td.TenantSchema, {
  name: 'AdminTenant',
  secrets: ['webhook_secret'],
  describe: {
    webhook_secret: 'Signs every webhook (`whsec_…`).',
    created_at: 'ISO 8601.',
    suspended_at: 'Set while suspended (its keys and sessions refused, its events held); null otherwise.',
  },
});

/** Client record of spec 2.2 (the contract never carries the access token; the failure reason stays internal). */
export const Client = record(td.ClientSchema, {
  name: 'Client',
  omit: ['signup_failure_reason'],
  describe: {
    signup_status: '`pending`, `in_progress`, `completed` or `failed`.',
    embed_signup_url: 'The hosted signup page of a pending client.',
    webhook_events: "Event types delivered to this client's webhook; empty: every type.",
    webhook_status: '`active` or `disabled`.',
    marketing_messages:
      'Where `send-template` sends MARKETING templates: `auto` (default) to the Marketing Messages API (`/marketing_messages`) once `marketing_messages_onboarded`, else `/messages`; `cloud_api` always `/messages`.',
    marketing_messages_onboarded:
      "Whether the client's business account accepted the Marketing Messages API terms (the provider's `account_update` `MM_LITE_TERMS_SIGNED`).",
    quality_rating: "The number's quality as the provider's `phone_number_quality_update` reported it (`GREEN`, `YELLOW`, `RED`, `UNKNOWN`), or null.",
    messaging_limit: 'The messaging limit the provider last reported (`TIER_250`, `TIER_2K`, `TIER_10K`, `TIER_100K`, `TIER_UNLIMITED`), or null.',
    throughput: 'Messages per second the number may send (80; 1000 after a throughput upgrade), once the provider reported it; else null.',
    status_reason:
      "Why the provider's `account_update` deactivated the client (`ACCOUNT_RESTRICTION`, `DISABLED_UPDATE`, `ACCOUNT_OFFBOARDED`...), or null; sends are then `409 client_inactive`.",
  },
});

/** Answer of POST /api/tenants/webhook-secret/rotate: `webhook_secret`, `previous_secret_expires_at`. */
export const SecretRotation = record(td.RotateWebhookSecretResponseSchema, { name: 'SecretRotation', secrets: ['webhook_secret'] });

/** A dashboard session as the page sees it: its CSRF token, never its session token (that lives only in the HttpOnly cookie). */
export const Session = record(td.SessionSchema, { name: 'Session', secrets: ['csrf_token'] });

/** A key of the caller's tenant, and the prefix of the key the request was made with. */
interface CallersKey {
  key: td.ApiKeyInfo;
  currentPrefix: string | undefined;
}

/** An API key as its tenant sees it: never the key, only its prefix; `current` marks the caller's own. */
export const ApiKey = record(td.ApiKeyInfoSchema, {
  name: 'ApiKey',
  of: (k: CallersKey) => k.key,
  fields: {
    current: field({ type: 'boolean', description: 'The key (or session key) of this request.' }, (k: CallersKey) => k.key.prefix === k.currentPrefix),
  },
});

/** An API key as the operator sees it: its prefix and dates. */
export const AdminApiKey = record(td.ApiKeyInfoSchema, { name: 'AdminApiKey' });

/** Flow record of decisions.md (`POST /api/flows`, `GET /api/flows[/{flow_id}]`); JSON fields travel serialized. */
export const Flow = record(fl.FlowSchema, {
  name: 'Flow',
  omit: ['tenant_id', 'validation_errors_json'],
  fields: {
    flow_json: field({ ...nullable(anyObject), description: "The flow's JSON, or null before it has one." }, (f: fl.Flow) =>
      f.flowJson ? parsed(f.flowJson) : null,
    ),
    validation_errors: field({ type: 'array', items: anyObject, description: "The provider's validation errors of the flow JSON." }, (f: fl.Flow) =>
      f.validationErrorsJson ? parsed(f.validationErrorsJson) : [],
    ),
  },
});

const statusChange: JsonSchema = {
  type: 'object',
  required: ['status', 'at'],
  additionalProperties: false,
  properties: {
    status: { type: 'string' },
    at: { type: 'string', format: 'date-time', description: 'When the provider reported it.' },
    errors: anyJson,
    conversation: anyJson,
    pricing: anyJson,
  },
};

/** Message record of decisions.md "Message status": errors, conversation and pricing of a status only where it has some. */
export const Message = record(m.MessageRecordSchema, {
  name: 'Message',
  omit: ['tenant_id', 'errors_json', 'conversation_json', 'pricing_json', 'content_json'],
  describe: {
    recipient: "The user's business-scoped user id (BSUID or parent BSUID) the send named, or null.",
    direction: '`in`: a message a user sent (status `received`); `out`: a send, or an echo of a message sent from the business app.',
    contact_id: 'The contact the message is with (GET /api/contacts/{contact_id}); null for sends stored before the message log.',
    from: 'Who wrote an inbound message: its `from` (phone), or its BSUID when the phone is withheld.',
    text: 'The text: a body, caption, reply title, reaction emoji or system message body.',
    context_id: 'The message it replies or reacts to.',
    reactions: "Users' reactions to it (in a thread; the latest of each user).",
  },
  fields: {
    to: field(
      { type: ['string', 'null'], description: 'The phone number the send named, or null when it named only `recipient`.' },
      (r: m.MessageRecord) => r.to || null,
    ),
    api: field(
      {
        type: 'string',
        enum: ['cloud_api', 'marketing_messages'],
        description:
          'The provider endpoint the send went to: `cloud_api` (`/messages`) or `marketing_messages` (`/marketing_messages`: a marketing template of a client onboarded to the Marketing Messages API).',
      },
      (r: m.MessageRecord) => r.api || 'cloud_api',
    ),
    status_history: field({ type: 'array', items: statusChange }, (r: m.MessageRecord) =>
      r.statusHistory.map((h) => ({
        status: h.status,
        at: h.at,
        ...(h.errorsJson ? { errors: parsed(h.errorsJson) } : {}),
        ...(h.conversationJson ? { conversation: parsed(h.conversationJson) } : {}),
        ...(h.pricingJson ? { pricing: parsed(h.pricingJson) } : {}),
      })),
    ),
    // what the provider's status updates said: the errors of a failure, the latest conversation and pricing
    errors: field(anyJson, (r: m.MessageRecord) => (r.errorsJson ? parsed(r.errorsJson) : null)),
    conversation: field(anyJson, (r: m.MessageRecord) => (r.conversationJson ? parsed(r.conversationJson) : null)),
    pricing: field(anyJson, (r: m.MessageRecord) => (r.pricingJson ? parsed(r.pricingJson) : null)),
    content: field({ ...anyJson, description: "The provider's message object of an inbound message or echo (null for sends)." }, (r: m.MessageRecord) =>
      r.contentJson ? parsed(r.contentJson) : null,
    ),
  },
});

/** A contact of a client (issue 27): every identity the provider gave, when it was seen, its 24-hour window. */
export const Contact = record(cv.ContactSchema, {
  name: 'Contact',
  describe: {
    wa_id: 'Phone number (as the provider writes it), when the user shares it.',
    user_id: 'Business-scoped user id (BSUID).',
    parent_user_id: 'Parent BSUID, for portfolios enrolled in a parent account.',
    window_open_until: 'End of the 24-hour customer service window: a day after the user last wrote; null when it never opened.',
    aliases: 'Identities the user had before (`user_changed_number`, `user_changed_user_id`): their history stays on this contact.',
    opted_out:
      "On the client's opt-out list (`/api/clients/{id}/opt-outs`: the API, a stop keyword, the provider's `user_preferences` or a `131050` failure) by its phone number, BSUID, parent BSUID or a former identity.",
    opted_out_at: 'When it was first put on the list (the earliest entry of its identities); null when not opted out.',
    opted_out_source: '`api`, `stop_keyword`, `user_preferences` or `provider_131050`; null when not opted out.',
  },
});

/** A conversation: the contact, its last message and the inbound messages since it was last marked read. */
export const Conversation = record(cv.ConversationSchema, {
  name: 'Conversation',
  fields: {
    contact: nested(Contact, (c: cv.Conversation) => c.contact),
    last_message: field({ anyOf: [{ $ref: '#/components/schemas/Message' }, { type: 'null' }] }, (c: cv.Conversation) => Message.present(c.lastMessage)),
  },
  describe: { unread: 'Inbound messages since the conversation was last marked read.' },
});

/** The delivery record of decisions.md ("Events and delivery"), attempts included. */
export const Delivery = record(d.DeliverySchema, {
  name: 'Delivery',
  fields: {
    status: field({ type: 'string', enum: [...DELIVERY_STATUSES] }, (r: d.Delivery) => r.status),
    event_type: field({ type: 'string', enum: [...EVENT_TYPES] }, (r: d.Delivery) => r.eventType),
  },
  describe: { body: 'The exact bytes signed (single delivery reads only; null in lists).' },
});

/** Template record (issue 12): the local copy of a provider template; its components travel serialized. */
export const Template = record(tp.TemplateSchema, {
  name: 'Template',
  omit: ['components_json'],
  fields: { components: field({ type: 'array', items: anyObject }, (t: tp.Template) => (t.componentsJson ? parsed(t.componentsJson) : [])) },
});

const DEAD_LETTER_PREVIEW_CHARS = 4096;

/** A dead letter for the operator API: where it came from, why it failed, its headers and the start of its body. */
export const DeadLetter = shape<BusDeadLetter>(
  {
    seq: field({ type: 'integer' }, (l) => l.seq),
    source: field(anyObject, (l) => l.source),
    error: field({ type: 'string' }, (l) => l.error),
    dead_lettered_at: field({ type: 'string' }, (l) => l.at),
    headers: field({ type: 'object', additionalProperties: { type: 'string' } }, (l) => l.headers),
    size: field({ type: 'integer' }, (l) => Buffer.byteLength(l.data)),
    data_preview: field({ type: 'string' }, (l) => (l.data.length > DEAD_LETTER_PREVIEW_CHARS ? `${l.data.slice(0, DEAD_LETTER_PREVIEW_CHARS)}…` : l.data)),
  },
  { name: 'DeadLetter' },
);

const callHoursSchema: JsonSchema = {
  type: 'object',
  required: ['enabled'],
  additionalProperties: true,
  description:
    "`enabled`, `timezone_id`, `weekly_operating_hours` [{`day_of_week`, `open_time`, `close_time`}], `holiday_schedule` [{`date`, `start_time`, `end_time`}] (the provider's `call_hours`, `enabled` for its `status`).",
  properties: { enabled: { type: 'boolean' } },
};

/** A call's record (provider-2026.md §7): its timeline from the provider's calls webhooks and the tenant's actions. */
export const Call = record(cl.CallSchema, {
  name: 'Call',
  omit: ['errors_json'],
  fields: {
    direction: field({ type: 'string', enum: ['user_initiated', 'business_initiated'] }, (r: cl.Call) => r.direction),
    status: field({ type: 'string', enum: [...CALL_STATUSES] }, (r: cl.Call) => r.status),
    timeline: field(
      {
        type: 'array',
        items: {
          type: 'object',
          required: ['status', 'at', 'source'],
          additionalProperties: false,
          properties: {
            status: { type: 'string', enum: [...CALL_STATUSES] },
            at: { type: 'string', format: 'date-time' },
            source: {
              type: 'string',
              enum: ['webhook', 'action'],
              description: '`webhook`: the provider reported it; `action`: a request through the gateway.',
            },
          },
        },
      },
      (r: cl.Call) => r.timeline.map((t) => ({ status: t.status, at: t.at, source: t.source })),
    ),
    errors: field({ ...anyJson, description: "The terminate webhook's errors of a failed call; null when none." }, (r: cl.Call) =>
      r.errorsJson ? parsed(r.errorsJson) : null,
    ),
  },
  describe: {
    user: 'The user: the caller of a user-initiated call, the callee of a business-initiated one.',
    started_at: 'When the call was answered (ISO 8601); null when it was not.',
    ended_at: 'When it ended (ISO 8601); null while it goes on.',
    duration_seconds: "Seconds from answer to end, as the provider's terminate webhook reported them; null when not answered or before that webhook.",
  },
});

/** A user's call permission (provider-2026.md §7.4), as the provider answers it. */
export const CallPermission = record(cl.CallPermissionSchema, {
  name: 'CallPermission',
  omit: ['actions_json'],
  fields: {
    actions: field(
      {
        type: 'array',
        items: anyObject,
        description: "The provider's `actions`: what the business may do now (`send_call_permission_request`, `start_call`) and their limits.",
      },
      (p: cl.CallPermission) => (p.actionsJson ? parsed(p.actionsJson) : []),
    ),
  },
  describe: { status: '`no_permission`, `temporary` or `permanent` (older provider versions: `granted`, `pending`, `denied`, `expired`).' },
});

/** A client's calling settings (provider-2026.md §7.1), as the provider has them. */
export const CallingSettings = record(cl.CallingSettingsSchema, {
  name: 'CallingSettings',
  omit: ['call_hours_json'],
  fields: {
    call_hours: field({ anyOf: [callHoursSchema, { type: 'null' }] }, (s: cl.CallingSettings) => (s.callHoursJson ? parsed(s.callHoursJson) : null)),
  },
  describe: {
    enabled: 'Calling is on for the number (users see the call button).',
    call_icon_visibility: '`DEFAULT` or `DISABLE_ALL`.',
    callback_permission: 'A user who calls the business grants it permission to call back.',
  },
});

/** One audit log entry (issue 28): who did what to which object, and how it was answered; never a body or a secret. */
export const AuditEntry = record(bz.AuditEntrySchema, {
  name: 'AuditEntry',
  describe: {
    actor_kind: '`api_key`, `session` (the dashboard) or `operator`.',
    actor: "The API key's prefix, or `admin_token`.",
    action: 'The operation id (OpenAPI `operationId`).',
    target_id: "The object acted on: the route's last path parameter, else the body's `client_id`, else the id of what the request created.",
    status: 'The HTTP status answered.',
    code: 'The error code answered, if any.',
    created_at: 'ISO 8601.',
  },
});

/** Every named record: the document's component schemas (components.ts). */
export const RECORDS: AnyPresenter[] = [
  Tenant,
  AdminTenant,
  AuditEntry,
  Client,
  SecretRotation,
  Session,
  ApiKey,
  AdminApiKey,
  Flow,
  Message,
  Contact,
  Conversation,
  Delivery,
  Template,
  DeadLetter,
  Call,
  CallPermission,
  CallingSettings,
  Campaign,
  CampaignRecipient,
  OptOut,
];
