import { RECORDS } from '../presenters/records';
import errorCodes from './error-codes.json';
import { MAX_ISSUES } from '../validation';
import type { JsonSchema } from './operation';

/*
 * The document's component schemas: the records are those of their presenters (presenters/records.ts, each
 * declared once with the function that makes it); error bodies from http-errors.ts, with the codes collected
 * from the code (error-codes.json). Every object is closed (`additionalProperties: false`): the tests validate
 * every response against these, so a field added to a response without its description fails them.
 */

const anyJson: JsonSchema = { description: 'Any JSON value.' };
const anyObject: JsonSchema = { type: 'object', additionalProperties: true };

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
  outcome: {
    type: 'string',
    enum: ['unknown'],
    description: '`unknown`: the provider may have acted (a send that timed out); check before sending again under a new key.',
  },
  failed_users: { type: 'array', items: anyObject, description: 'block/unblock-users: the users the provider refused.' },
  added_users: { type: 'array', items: { type: 'string' } },
  removed_users: { type: 'array', items: { type: 'string' } },
  status: { type: 'string', description: "The object's current state (e.g. a flow's status), when the conflict is about it." },
  signup_status: { type: 'string', description: "A client's signup state, when the conflict is about it (`client_not_active`)." },
  status_reason: { type: 'string', description: "Why the provider's account updates deactivated the client (`client_inactive`: `ACCOUNT_RESTRICTION`...)." },
  validation_errors: { type: 'array', items: anyObject, description: "The provider's validation errors of a flow JSON." },
  limit: {
    type: 'string',
    description: "The plan's limit a `429` is over: `requests`, `sends` (per second), `sends_per_day`, `campaigns_per_day`, `clients` (docs/business.md).",
  },
  quota: { type: 'integer', description: 'That limit (`clients`: the most clients of the plan).' },
  scope: { type: 'string', description: 'The scope a `403 insufficient_scope` route needs (docs/business.md).' },
};

function errorSchema(status: number): JsonSchema {
  const codes = ERROR_CODES[String(status)] ?? [];
  if (status === 422) {
    return {
      type: 'object',
      description: `A request the gateway refused before acting (spec form: every problem at once in \`detail\`, the first ${MAX_ISSUES} of them, \`more_issues\` counting the others), or a provider refusal of an input (then with \`code\`, \`retryable\` and \`provider_error\`).`,
      required: ['detail'],
      additionalProperties: false,
      properties: {
        detail: { type: 'array', maxItems: MAX_ISSUES, items: { $ref: '#/components/schemas/ValidationIssue' } },
        more_issues: {
          type: 'integer',
          minimum: 1,
          description: `Problems found beyond the ${MAX_ISSUES} that \`detail\` lists.`,
        },
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
    ...Object.fromEntries(RECORDS.map((p) => [p.name!, p.schema])),
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
