import { ScalarType, type DescField, type DescMessage } from '@bufbuild/protobuf';
import { dispatcher as d, flows as fl, messaging as m, templates as tp, tenantDirectory as td } from '@gateway/contracts';
import { DELIVERY_STATUSES, EVENT_TYPES } from '@gateway/events';
import errorCodes from './error-codes.json';
import type { JsonSchema } from './operation';

/*
 * The document's component schemas. Records are described from the same proto messages presenters.ts turns into
 * JSON (`recordJson`: proto field names, every field present, an absent optional field null), with the same fields
 * left out or replaced; error bodies from http-errors.ts, with the codes collected from the code (error-codes.json).
 * Every object is closed (`additionalProperties: false`): the tests validate every response against these, so a
 * field added to a response without its description fails them.
 */

const INT64 = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);
const NUMBERS = new Set([ScalarType.DOUBLE, ScalarType.FLOAT]);

function scalarSchema(t: ScalarType): JsonSchema {
  if (t === ScalarType.STRING) return { type: 'string' };
  if (t === ScalarType.BOOL) return { type: 'boolean' };
  if (t === ScalarType.BYTES) return { type: 'string', contentEncoding: 'base64' };
  if (INT64.has(t)) return { type: 'string', pattern: '^-?\\d+$' };
  if (NUMBERS.has(t)) return { type: 'number' };
  return { type: 'integer' };
}

const nullable = (s: JsonSchema): JsonSchema => (typeof s.type === 'string' ? { ...s, type: [s.type, 'null'] } : { anyOf: [s, { type: 'null' }] });

function fieldSchema(f: DescField): JsonSchema {
  switch (f.fieldKind) {
    case 'scalar': {
      const s = scalarSchema(f.scalar);
      return f.presence === 1 ? nullable(s) : s; // explicit presence (proto3 `optional`): null when absent
    }
    case 'enum': {
      const s = { type: 'string', enum: f.enum.values.map((v) => v.name) };
      return f.presence === 1 ? nullable(s) : s;
    }
    case 'message':
      return nullable(recordSchema(f.message));
    case 'list':
      if (f.listKind === 'scalar') return { type: 'array', items: scalarSchema(f.scalar) };
      if (f.listKind === 'enum') return { type: 'array', items: { type: 'string', enum: f.enum.values.map((v) => v.name) } };
      return { type: 'array', items: recordSchema(f.message) };
    case 'map':
      return { type: 'object', additionalProperties: f.mapKind === 'message' ? recordSchema(f.message) : f.mapKind === 'scalar' ? scalarSchema(f.scalar) : { type: 'string' } };
  }
}

/** The JSON of `recordJson(schema, …)` (presenters.ts): every field present, absent optional ones null. */
export function recordSchema(desc: DescMessage, opts: { omit?: string[]; replace?: Record<string, JsonSchema>; add?: Record<string, JsonSchema>; describe?: Record<string, string> } = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const f of desc.fields) {
    if (opts.omit?.includes(f.name)) continue;
    properties[f.name] = opts.replace?.[f.name] ?? fieldSchema(f);
  }
  Object.assign(properties, opts.add ?? {});
  for (const [k, text] of Object.entries(opts.describe ?? {})) if (properties[k]) properties[k] = { ...properties[k], description: text };
  return { type: 'object', required: Object.keys(properties), additionalProperties: false, properties };
}

const anyJson: JsonSchema = { description: 'Any JSON value.' };
const anyObject: JsonSchema = { type: 'object', additionalProperties: true };
const dateTime = (description: string): JsonSchema => ({ type: 'string', format: 'date-time', description });

/** Statuses whose error codes are collected (error-codes.json). */
export const ERROR_CODES: Record<string, string[]> = errorCodes;

export function errorSchemaName(status: number): string {
  return status === 422 ? 'ValidationError' : `Error${status}`;
}

const providerError: JsonSchema = {
  type: 'object',
  description: "The provider's own error, when the provider refused the request (docs/provider-errors.md).",
  required: ['code', 'subcode', 'message', 'type', 'trace_id'],
  additionalProperties: false,
  properties: {
    code: { type: ['integer', 'null'] },
    subcode: { type: ['integer', 'null'] },
    message: { type: 'string' },
    type: { type: ['string', 'null'] },
    trace_id: { type: ['string', 'null'] },
    details: { type: ['string', 'null'], description: "The provider's `error_data.details`." },
    user_title: { type: ['string', 'null'] },
    user_message: { type: ['string', 'null'] },
  },
};

/** Fields some errors carry beside `detail` and `code` (AppError details travel with 4xx/5xx answers). */
const errorExtras: Record<string, JsonSchema> = {
  retryable: { type: 'boolean', description: 'The same request may succeed later (after `Retry-After` when given).' },
  provider_error: { $ref: '#/components/schemas/ProviderError' },
  outcome: { type: 'string', enum: ['unknown'], description: '`unknown`: the provider may have acted (a send that timed out); check before sending again under a new key.' },
  failed_users: { type: 'array', items: anyObject, description: 'block/unblock-users: the users the provider refused.' },
  added_users: { type: 'array', items: { type: 'string' } },
  removed_users: { type: 'array', items: { type: 'string' } },
  status: { type: 'string', description: "The object's current state (e.g. a flow's status), when the conflict is about it." },
  signup_status: { type: 'string', description: "A client's signup state, when the conflict is about it (`client_not_active`)." },
  validation_errors: { type: 'array', items: anyObject, description: "The provider's validation errors of a flow JSON." },
};

function errorSchema(status: number): JsonSchema {
  const codes = ERROR_CODES[String(status)] ?? [];
  if (status === 422) {
    return {
      type: 'object',
      description:
        'A request the gateway refused before acting (spec form: every problem at once in `detail`), or a provider refusal of an input (then with `code`, `retryable` and `provider_error`).',
      required: ['detail'],
      additionalProperties: false,
      properties: {
        detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationIssue' } },
        code: { type: 'string', enum: codes.filter((c) => c !== 'validation_failed' && c !== 'invalid_argument') },
        ...errorExtras,
      },
    };
  }
  return {
    type: 'object',
    required: ['detail', 'code'],
    additionalProperties: false,
    properties: {
      detail: { type: 'string', description: 'For people: what went wrong.' },
      code: { type: 'string', enum: codes, description: 'Stable machine code.' },
      ...errorExtras,
    },
  };
}

export function componentSchemas(): Record<string, JsonSchema> {
  const errors = Object.fromEntries(Object.keys(ERROR_CODES).map((s) => [errorSchemaName(Number(s)), errorSchema(Number(s))]));
  return {
    Tenant: recordSchema(td.TenantSchema, { describe: { webhook_secret: 'Signs every webhook (`whsec_…`).', created_at: 'ISO 8601.' } }),
    Client: recordSchema(td.ClientSchema, {
      omit: ['signup_failure_reason'],
      describe: {
        signup_status: '`pending`, `in_progress`, `completed` or `failed`.',
        embed_signup_url: 'The hosted signup page of a pending client.',
        webhook_events: 'Event types delivered to this client\'s webhook; empty: every type.',
        webhook_status: '`active` or `disabled`.',
      },
    }),
    SecretRotation: recordSchema(td.RotateWebhookSecretResponseSchema),
    Session: recordSchema(td.SessionSchema),
    ApiKey: recordSchema(td.ApiKeyInfoSchema, { add: { current: { type: 'boolean', description: 'The key (or session key) of this request.' } } }),
    AdminApiKey: recordSchema(td.ApiKeyInfoSchema),
    Flow: recordSchema(fl.FlowSchema, {
      omit: ['tenant_id', 'validation_errors_json'],
      replace: { flow_json: { ...nullable(anyObject), description: "The flow's JSON, or null before it has one." } },
      add: { validation_errors: { type: 'array', items: anyObject, description: "The provider's validation errors of the flow JSON." } },
    }),
    Message: recordSchema(m.MessageRecordSchema, {
      omit: ['tenant_id', 'errors_json', 'conversation_json', 'pricing_json'],
      replace: {
        status_history: {
          type: 'array',
          items: {
            type: 'object',
            required: ['status', 'at'],
            additionalProperties: false,
            properties: { status: { type: 'string' }, at: dateTime('When the provider reported it.'), errors: anyJson, conversation: anyJson, pricing: anyJson },
          },
        },
      },
      add: { errors: anyJson, conversation: anyJson, pricing: anyJson },
    }),
    Delivery: recordSchema(d.DeliverySchema, {
      replace: { status: { type: 'string', enum: [...DELIVERY_STATUSES] }, event_type: { type: 'string', enum: [...EVENT_TYPES] } },
      describe: { body: 'The exact bytes signed (single delivery reads only; null in lists).' },
    }),
    Template: recordSchema(tp.TemplateSchema, { omit: ['components_json'], add: { components: { type: 'array', items: anyObject } } }),
    DeadLetter: {
      type: 'object',
      required: ['seq', 'source', 'error', 'dead_lettered_at', 'headers', 'size', 'data_preview'],
      additionalProperties: false,
      properties: {
        seq: { type: 'integer' },
        source: anyObject,
        error: { type: 'string' },
        dead_lettered_at: { type: 'string' },
        headers: { type: 'object', additionalProperties: { type: 'string' } },
        size: { type: 'integer' },
        data_preview: { type: 'string' },
      },
    },
    ValidationIssue: {
      type: 'object',
      required: ['loc', 'msg', 'type'],
      additionalProperties: false,
      properties: {
        loc: { type: 'array', items: { type: 'string' }, description: '`["body", "buttons", "0", "title"]`: where the problem is.' },
        msg: { type: 'string' },
        type: { type: 'string', description: 'Stable machine word (`missing`, `too_long`, `enum`, …).' },
        input: anyJson,
        ctx: anyObject,
      },
    },
    ProviderError: providerError,
    ...errors,
  };
}
