import type Joi from 'joi';
import { AppError, issuesFrom } from '@gateway/errors';
import type { ProviderMessage } from './provider-message';

/** The fields every send's body has (`sendFields`). */
export interface SendBody {
  client_id: string;
  /** The user's phone number; when `recipient` is given too, the provider delivers to this one. */
  to?: string;
  /** The user's business-scoped user id (BSUID) or parent BSUID (provider-2026.md §2.2). */
  recipient?: string;
  reply_to?: string;
}

/** What a payload builder may read of the client that sends (the messaging service resolves it). */
export interface SendingClient {
  /** The client's linked catalog (the default of `send-products`), if it has one. */
  catalogId?: string;
}

/** The approved template a send uses: the messaging service checks it against its local copy before sending. */
export interface TemplateUse {
  name: string;
  language: string;
  components: unknown[] | undefined;
}

/** A header a send's `200` carries beside `X-Message-Id` (`X-Flow-Token`), taken from the prepared body. */
export interface AnswerHeader<Body> {
  name: string;
  /** For the API description. */
  description: string;
  value(body: Body): string;
}

/** A tenant's body as an example gives it: without `client_id` (each test adds its client), fields as the tenant sends them. */
export type ExampleBody<Body> = { [K in Exclude<keyof Body, 'client_id'>]?: Body[K] };

/** A valid send and exactly what the provider must receive for it (sent by `EXAMPLE_CLIENT`). */
export interface ValidExample<Body> {
  /** What the example shows ("with an image header and footer"). */
  name: string;
  body: ExampleBody<Body>;
  payload: ProviderMessage;
  /** The message record's `kind` when it is not the kind's name (send-media records the media type). */
  recordKind?: string;
}

/** A body the edge refuses, and where and why its `422` says so (one of the issues of `detail`). */
export interface InvalidExample {
  name: string;
  /** Without `client_id` unless the example is about it (tests add a valid one first). */
  body: { [key: string]: unknown };
  /** The issue's `loc`, e.g. `['body', 'buttons', '0', 'title']`. */
  loc: string[];
  /** The issue's `type` word, e.g. `too_long`. */
  type: string;
}

/**
 * Where the provider's OpenAPI file (tools/testing/contract/provider-openapi-v23.yaml) is wrong about this kind's
 * payloads, with the reference's reason. The provider-contract test excuses an error only when the example's
 * name, the instance path, the keyword and the schema path all match; it fails on an exception no example meets.
 */
export interface ProviderFileGap {
  /** The examples it applies to (by name); all of the kind's when absent. */
  examples?: RegExp;
  instancePath: RegExp;
  keyword: string;
  schemaPath: RegExp;
  why: string;
}

/** What a kind module writes: everything about one message kind. */
export interface KindSpec<Name extends string, Body extends SendBody> {
  /**
   * The kind's one name (snake_case): the message record's `kind`, the idempotency operation `send:<name>`, the
   * path `/api/messaging/send-<name with dashes>` and the operation id `send<Name>` (`location_request` →
   * `send-location-request`, `sendLocationRequest`). The provider's own type names are the builder's business.
   */
  name: Name;
  /** For the API description. */
  summary: string;
  /** The tenant's body (validated without conversion: the edge for the tenant's 422, the messaging service again). */
  schema: Joi.ObjectSchema<Body>;
  /** The provider's message for a validated (and prepared) body. */
  build(body: Body, client: SendingClient): ProviderMessage;
  /** Values the gateway chooses before sending (a generated flow token), once: a replay answers the stored ones. */
  prepare?(body: Body): Body;
  /** The message record's `kind` when it is not `name`. */
  recordKind?(body: Body): string;
  /** The template the send uses, for the messaging service's check against its local copy. */
  template?(body: Body): TemplateUse;
  /** The flow the send opens, for the edge's check that the client may use it. */
  flow?(body: Body): { flowId: string };
  answerHeaders?: Array<AnswerHeader<Body>>;
  examples: { valid: Array<ValidExample<NoInfer<Body>>>; invalid: InvalidExample[] };
  providerFileGaps?: ProviderFileGap[];
}

/** A message kind as the edge, the messaging service and the tests use it (`defineKind` fills in the derived parts). */
export interface MessageKind<Name extends string = string, Body extends SendBody = SendBody> extends KindSpec<Name, Body> {
  /** `send-<name with dashes>`, under `/api/messaging/`. */
  readonly path: string;
  /** `send<Name>`: the SDK's method name. */
  readonly operationId: string;
  /** Validates a tenant's body as the edge does; anything else is a `422` listing every problem. */
  parse(value: unknown): Body;
  prepare(body: Body): Body;
  recordKind(body: Body): string;
  answerHeaders: Array<AnswerHeader<Body>>;
  providerFileGaps: ProviderFileGap[];
}

/** `location_request` → `send-location-request`. */
export const pathOf = (name: string) => `send-${name.replace(/_/g, '-')}`;
/** `send-location-request` → `sendLocationRequest`. */
export const operationIdOf = (path: string) => path.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());

/** The options the edge validates bodies with: every problem at once, no conversion, labels unquoted. */
export const BODY_VALIDATION: Joi.ValidationOptions = { abortEarly: false, convert: false, errors: { wrap: { label: false } } };

export function defineKind<const Name extends string, Body extends SendBody>(spec: KindSpec<Name, Body>): MessageKind<Name, Body> {
  if (!/^[a-z]+(_[a-z]+)*$/.test(spec.name)) throw new Error(`message kind name ${spec.name} is not snake_case`);
  const path = pathOf(spec.name);
  return {
    ...spec,
    path,
    operationId: operationIdOf(path),
    parse(value: unknown): Body {
      const result = spec.schema.validate(value, BODY_VALIDATION);
      if (result.error) throw AppError.validation(issuesFrom('body', result.error));
      return result.value;
    },
    prepare: (body) => (spec.prepare ? spec.prepare(body) : body),
    recordKind: (body) => (spec.recordKind ? spec.recordKind(body) : spec.name),
    answerHeaders: spec.answerHeaders ?? [],
    providerFileGaps: spec.providerFileGaps ?? [],
  };
}
