import type Router from '@koa/router';
import type Joi from 'joi';
import parseJoi from 'joi-to-json';
import { phone } from '@gateway/message-kinds';
import { EVENT_TYPES, eventSchema, type EventType } from '@gateway/events';
import { componentSchemas, ERROR_CODES, errorSchemaName } from './components';
import { layerSpec, noStoreOf, type JsonSchema, type OperationSpec } from './operation';

/** Where a router is mounted decides who may call its routes and which errors every one of them can answer. */
export type Mount = 'public' | 'admin' | 'api';

export interface MountedRouter {
  router: Router;
  mount: Mount;
}

export interface DocumentOptions {
  /** The gateway's public base URL (`PUBLIC_BASE_URL`). */
  serverUrl: string;
  version: string;
}

type Obj = Record<string, unknown>;

/** Koa's `/a/:id` and `/a/{*rest}` as OpenAPI's `/a/{id}` and `/a/{rest}`; `/a/` is the same route as `/a`. */
export function openApiPath(koaPath: string): string {
  const p = koaPath.replace(/\{\*(\w+)\}/g, '{$1}').replace(/:(\w+)/g, '{$1}');
  return p.length > 1 ? p.replace(/\/$/, '') : p;
}

const isNever = (n: unknown) => !!n && typeof n === 'object' && Object.keys(n).length === 1 && JSON.stringify((n as Obj).not) === '{}';

/**
 * Tidies the converter's output of joi's `when` (which it writes as a `oneOf` of the branches, one being
 * `{not: {}}` for a forbidden field, beside a `type` listing every JSON type): every `oneOf` becomes `anyOf`
 * (branches can overlap, e.g. two kinds of URL, and a `oneOf` would then refuse input joi accepts), never-matching
 * and repeated branches go, a single branch left replaces the `anyOf`, and the catch-all `type` beside it goes.
 * What the branches do not say (which one applies when) joi still checks; the document describes the union.
 */
function loosen(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(loosen);
  if (!node || typeof node !== 'object') return node;
  const out: Obj = {};
  for (const [k, v] of Object.entries(node as Obj)) out[k === 'oneOf' ? 'anyOf' : k] = loosen(v);
  if (Array.isArray(out.anyOf)) {
    if (Array.isArray(out.type) && out.type.length >= 6) delete out.type;
    const seen = new Set<string>();
    const branches = (out.anyOf as unknown[]).filter((b) => {
      const key = JSON.stringify(b);
      if (isNever(b) || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    if (branches.length === 1 && branches[0] && typeof branches[0] === 'object') {
      delete out.anyOf;
      return { ...(branches[0] as Obj), ...out };
    }
    if (branches.length) out.anyOf = branches;
  }
  return out;
}

/** joi → JSON Schema 2020-12 (joi-to-json's `open-api-3.1` mode, which reads joi 18's `describe()`). */
export function joiSchema(schema: Joi.Schema): JsonSchema {
  return recipientRule(loosen(parseJoi(schema as never, 'open-api-3.1')) as JsonSchema);
}

/**
 * A send's recipient (`sendFields` of @gateway/message-kinds): `to` is required unless `recipient` is given, a joi
 * `when` the converter cannot write (it loses `to`'s type). The document says it as JSON Schema does: `to` a
 * phone number, and at least one of `to` and `recipient`.
 */
function recipientRule(schema: JsonSchema): JsonSchema {
  const s = schema as { properties?: Record<string, JsonSchema>; required?: string[]; anyOf?: unknown[] };
  if (!s.properties?.to || !s.properties.recipient || s.required?.includes('to')) return schema;
  s.properties.to = {
    ...(parseJoi(phone as never, 'open-api-3.1') as JsonSchema),
    description: "The user's phone number. At least one of `to` and `recipient` is required; given both, the provider delivers to `to`.",
  };
  s.properties.recipient = {
    ...s.properties.recipient,
    description: "The user's business-scoped user id (BSUID, `US.13491208655302741918`) or parent BSUID (`US.ENT.…`), as the provider's webhooks give it.",
  };
  s.anyOf = [{ required: ['to'] }, { required: ['recipient'] }];
  return schema;
}

const PARAM_TEXT: Record<string, string> = {
  limit: 'Page size.',
  cursor: '`next_cursor` of the previous page (sealed: only for the same list and tenant).',
  client_id: 'The client (UUID).',
};

/** An object schema's keys as OpenAPI parameters `in` path, query or header. */
function parameters(where: 'path' | 'query' | 'header', schema: Joi.Schema | undefined): Obj[] {
  if (!schema) return [];
  const s = joiSchema(schema) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(s.properties ?? {}).map(([name, prop]) => {
    const { description, ...rest } = prop as Obj;
    return {
      name,
      in: where,
      required: where === 'path' || (s.required ?? []).includes(name),
      ...(description || PARAM_TEXT[name] ? { description: description ?? PARAM_TEXT[name] } : {}),
      schema: rest,
    };
  });
}

const camel = (s: string) => s.replace(/[-_](\w)/g, (_, c: string) => c.toUpperCase());

const REQUEST_ID_PARAM = { $ref: '#/components/parameters/RequestId' };
const REQUEST_ID_HEADER = { $ref: '#/components/headers/RequestId' };
const NO_STORE_HEADER = { $ref: '#/components/headers/NoStore' };
/** Every answer of a tenant's /api request past authentication (middleware/quota.ts). */
const RATE_LIMIT_HEADERS = { 'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' }, RateLimit: { $ref: '#/components/headers/RateLimit' } };

/** Statuses every operation of a mount can answer (besides its own `errors`). */
function defaultErrors(mount: Mount, spec: OperationSpec, method: string): number[] {
  const out = new Set<number>([500]);
  const security = spec.security ?? (mount === 'api' ? 'tenant' : mount === 'admin' ? 'admin' : 'public');
  if (security !== 'public') out.add(401);
  // every tenant request is counted against its plan's limits (middleware/quota.ts); a suspended tenant is a 403
  if (security === 'tenant') out.add(429).add(403);
  // a state-changing request made with the dashboard session cookie needs its CSRF token
  if (security === 'tenant' && method !== 'get') out.add(403);
  if (mount !== 'public') {
    // every /api and /admin operation calls a service over gRPC (or the bus)
    out.add(503).add(504);
    // a body slower than BODY_TIMEOUT_MS is a 408, a larger one a 413, a non-JSON one a 415
    if (method !== 'get' && method !== 'delete') out.add(408).add(413).add(415);
  }
  const r = spec.request ?? {};
  // query and path parameters are checked for storable text, bodies for JSON syntax and nesting, before any schema
  if (r.body || r.path || r.query || r.headers || mount !== 'public') out.add(422);
  for (const s of spec.errors ?? []) out.add(s);
  return [...out].sort((a, b) => a - b);
}

function securityOf(mount: Mount, spec: OperationSpec): Obj[] {
  const security = spec.security ?? (mount === 'api' ? 'tenant' : mount === 'admin' ? 'admin' : 'public');
  if (security === 'tenant') return [{ apiKey: [] }, { dashboardSession: [] }];
  if (security === 'admin') return [{ adminToken: [] }];
  if (security === 'session') return [{ dashboardSession: [] }];
  return [];
}

const ERROR_TEXT: Record<number, string> = {
  400: 'Malformed HTTP request.',
  401: 'Missing or invalid credentials (`WWW-Authenticate: Bearer`).',
  403: 'Refused: e.g. a state-changing request made with the dashboard session cookie without its `X-CSRF-Token`.',
  404: "Not found (another tenant's objects are not found too).",
  405: 'Method not allowed on this path (`Allow` lists the allowed ones).',
  408: 'The request body did not arrive within `BODY_TIMEOUT_MS` (`request_body_timeout`).',
  409: 'Conflict with the current state (inactive client, idempotency key reuse, closed customer-service window, …).',
  413: 'Request body too large.',
  415: 'The body must be `application/json`.',
  422: 'Validation failed: every problem at once in `detail`.',
  429: 'Rate limited: retry after `Retry-After` seconds.',
  431: 'Request line or headers too large.',
  500: 'A bug (never bad input).',
  502: 'The provider refused the request (`provider_error`).',
  503: 'A service, the bus or the provider is unavailable; retry later.',
  504: 'A service or the provider did not answer in time (`provider_outcome_unknown`: a send may have happened).',
};

const RATE_LIMITED_TEXT =
  "Over a limit of the tenant's plan (`rate_limited`: a per-second rate; `quota_exceeded`: the daily sends or the number of clients), or a provider's limit: retry after `Retry-After` seconds. `RateLimit-Policy` and `RateLimit` say which limits the request was counted against.";

function errorResponse(status: number): Obj {
  const headers: Obj = { 'X-Request-Id': REQUEST_ID_HEADER };
  if (status === 429 || status === 503) headers['Retry-After'] = { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } };
  if (status === 401) headers['WWW-Authenticate'] = { schema: { type: 'string' } };
  if (status === 405) headers.Allow = { schema: { type: 'string' } };
  return {
    description: ERROR_TEXT[status] ?? `Error ${status}.`,
    headers,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${errorSchemaName(status)}` } } },
  };
}

function buildOperation(mount: Mount, method: string, spec: OperationSpec): Obj {
  const r = spec.request ?? {};
  const params: unknown[] = [...parameters('path', r.path), ...parameters('query', r.query), ...parameters('header', r.headers)].filter(
    (p) => (p as Obj).name !== 'idempotency-key',
  );
  if (spec.idempotent) params.push({ $ref: '#/components/parameters/IdempotencyKey' });
  params.push(REQUEST_ID_PARAM);
  const responses: Obj = {};
  const noStore = noStoreOf(spec);
  for (const [status, res] of Object.entries(spec.responses)) {
    const headers: Obj = {
      'X-Request-Id': REQUEST_ID_HEADER,
      ...(noStore ? { 'Cache-Control': NO_STORE_HEADER } : {}),
      ...(mount === 'api' ? RATE_LIMIT_HEADERS : {}),
      ...(res.headers ?? {}),
    };
    const out: Obj = { description: res.description, headers };
    const types = [res.contentType ?? 'application/json'].flat();
    if (res.schema !== undefined) out.content = Object.fromEntries(types.map((t) => [t, { schema: res.schema === null ? { type: 'null' } : res.schema }]));
    responses[status] = out;
  }
  for (const status of defaultErrors(mount, spec, method)) {
    if (!ERROR_CODES[String(status)]) throw new Error(`no error codes were collected for status ${status} (scripts/collect-error-codes.mjs)`);
    if (status === 429 && mount === 'api') {
      const limited = errorResponse(429);
      responses['429'] ??= { ...limited, description: RATE_LIMITED_TEXT, headers: { ...(limited.headers as Obj), ...RATE_LIMIT_HEADERS } };
    }
    responses[String(status)] ??= { $ref: `#/components/responses/Error${status}` };
  }
  const op: Obj = {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: spec.tags,
    security: securityOf(mount, spec),
    parameters: params,
  };
  if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: joiSchema(r.body) } } };
  else if (r.rawBody) op.requestBody = { required: true, content: Object.fromEntries(Object.entries(r.rawBody).map(([type, schema]) => [type, { schema }])) };
  op.responses = responses;
  if (spec.hidden) op['x-sdk-ignore'] = true;
  return op;
}

export interface RouteEntry {
  method: string;
  /** OpenAPI form. */
  path: string;
  spec?: OperationSpec;
  mount: Mount;
}

/** Every route of the routers (HEAD aside, trailing-slash aliases once), with its description when it has one. */
export function routeEntries(routers: MountedRouter[]): RouteEntry[] {
  const seen = new Map<string, RouteEntry>();
  for (const { router, mount } of routers) {
    for (const layer of router.stack) {
      const spec = layerSpec(layer);
      for (const m of layer.methods) {
        if (m === 'HEAD') continue;
        const path = openApiPath(String(layer.path));
        const key = `${m} ${path}`;
        const prev = seen.get(key);
        if (!prev || (!prev.spec && spec)) seen.set(key, { method: m.toLowerCase(), path, spec, mount });
      }
    }
  }
  return [...seen.values()];
}

const SIGNATURE_HEADERS: Array<[string, string, JsonSchema]> = [
  ['X-Signature-256', "`sha256=<hex>`: HMAC-SHA256 of the raw body with the tenant's `webhook_secret`.", { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' }],
  ['X-Event-Id', 'The event id: the same on every attempt; dedupe on it.', { type: 'string' }],
  ['X-Event-Type', "The envelope's `type`.", { type: 'string', enum: [...EVENT_TYPES] }],
  ['X-Delivery-Id', 'The delivery record (`GET /api/clients/{id}/webhook/deliveries/{delivery_id}`).', { type: 'string', format: 'uuid' }],
  ['X-Delivery-Attempt', 'Attempt number, from 1.', { type: 'string', pattern: '^\\d+$' }],
  ['webhook-id', 'Standard Webhooks: the event id.', { type: 'string' }],
  ['webhook-timestamp', 'Standard Webhooks: Unix seconds of the signing; refuse old ones (replay).', { type: 'string', pattern: '^\\d+$' }],
  [
    'webhook-signature',
    'Standard Webhooks: `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, space-separated when two secrets sign during a rotation. `verifyWebhook` of `@gateway/sdk` (or the `standardwebhooks` library) checks it.',
    { type: 'string' },
  ],
];

const EVENT_TEXT: Record<EventType, string> = {
  chat: 'An inbound update from the provider (messages, statuses of sent messages, …), forwarded.',
  signup_completed: 'A client finished embedded signup and is active.',
  template_status: 'A message template changed status at the provider.',
  flow_completion: 'A user completed a flow.',
  test: 'A test event (`POST /api/clients/{id}/webhook/test`).',
  campaign_status: 'A campaign started, was paused or resumed, completed or was cancelled, with its counts.',
};

/** 3.1 `webhooks`: one POST per event type, the envelope with that type's payload (@gateway/events, the AsyncAPI's source too). */
function webhooks(): { webhooks: Obj; schemas: Record<string, JsonSchema> } {
  const out: Obj = {};
  const schemas: Record<string, JsonSchema> = {};
  for (const type of EVENT_TYPES) {
    const schema = eventSchema(type);
    const name = String(schema.title);
    schemas[name] = schema;
    out[type] = {
      post: {
        operationId: `${camel(type)}Event`,
        summary: `${type} event`,
        description: `${EVENT_TEXT[type]} Delivered as a signed POST to the client's (or tenant's) webhook URL; verify the signature on the raw bytes before parsing. Answer 2xx within the timeout; anything else is retried (0 s, +5 s, +25 s). \`410 Gone\` stops deliveries to the URL.`,
        tags: ['Events'],
        parameters: SIGNATURE_HEADERS.map(([name, description, s]) => ({ name, in: 'header', required: true, description, schema: s })),
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } } },
        responses: { '2XX': { description: 'Received.' }, '410': { description: 'Gone: the gateway stops delivering to this URL.' } },
      },
    };
  }
  return { webhooks: out, schemas };
}

/** Tags in the order the reference lists them. */
const TAG_TEXT: Record<string, string> = {
  Messaging: "Sends and other calls on behalf of an active client. A send answers `200 null` with the provider's message id in `X-Message-Id`.",
  Calls: 'Inbound calls.',
  Clients: 'Business accounts of the tenant (active, or pending embedded signup).',
  Deliveries: 'Webhook delivery records of a client, redelivery and test events.',
  Events:
    "The signed webhooks the gateway sends (the document's `webhooks`): verify `webhook-signature` (Standard Webhooks) or `X-Signature-256` on the raw body.",
  Tenant: "The caller's tenant: webhook URL and secret, API keys.",
  Flows: 'Interactive flows of a client.',
  Templates: 'Message templates of a client.',
  Admin: 'Operator API (`GATEWAY_ADMIN_TOKEN`).',
  Signup: 'The hosted embedded-signup page (public).',
  Dashboard: "The tenants' web console and its session.",
  Provider: 'Inbound webhooks from the provider (signed with `X-Hub-Signature-256`).',
  Health: 'Liveness and readiness.',
  Reference: 'This document and its browsable form.',
};

/** The OpenAPI 3.1 document of every described route of the routers. */
export function buildOpenApiDocument(routers: MountedRouter[], opts: DocumentOptions): Obj {
  const paths: Record<string, Obj> = {};
  const tags = new Set<string>();
  const ids = new Set<string>();
  for (const entry of routeEntries(routers)) {
    if (!entry.spec) continue;
    if (ids.has(entry.spec.operationId) && !paths[entry.path]?.[entry.method]) throw new Error(`operationId ${entry.spec.operationId} is used twice`);
    ids.add(entry.spec.operationId);
    for (const t of entry.spec.tags) tags.add(t);
    (paths[entry.path] ??= {})[entry.method] = buildOperation(entry.mount, entry.method, entry.spec);
  }
  const hooks = webhooks();
  return {
    openapi: '3.1.0',
    info: {
      title: 'Business messaging gateway',
      version: opts.version,
      description:
        "Multi-tenant gateway in front of a business messaging platform's Cloud API. Authenticate with `Authorization: Bearer <API key>`. Errors: `422` lists every problem in `detail` (`[{loc, msg, type, input, ctx}]`); every other error is `{detail, code}` with a stable `code` (plus `provider_error` when the provider refused). Every response carries `X-Request-Id` and `X-Content-Type-Options: nosniff`; every answer of an operation that can answer a secret (an API key, a webhook secret, a CSRF token) carries `Cache-Control: no-store`. Lists page with `limit` and `cursor` (`next_cursor`, null on the last page). Sends take `Idempotency-Key`.",
    },
    servers: [{ url: opts.serverUrl }],
    tags: [...Object.keys(TAG_TEXT).filter((t) => tags.has(t) || t === 'Events'), ...[...tags].filter((t) => !(t in TAG_TEXT))].map((name) => ({
      name,
      description: TAG_TEXT[name] ?? name,
    })),
    paths,
    webhooks: hooks.webhooks,
    components: {
      schemas: { ...componentSchemas(), ...hooks.schemas },
      responses: Object.fromEntries(Object.keys(ERROR_CODES).map((s) => [`Error${s}`, errorResponse(Number(s))])),
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'A tenant API key (`gw_…`), from `POST /admin/tenants` or `POST /api/api-keys`.' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'The operator token (`GATEWAY_ADMIN_TOKEN`).' },
        dashboardSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'gw_session',
          description:
            "The dashboard's session cookie (`__Host-gw_session` over https), from `POST /dashboard/session`; state-changing requests made with it also send `X-CSRF-Token`.",
        },
      },
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Makes a retry safe: the first outcome is stored for 24 h and a repeat with the same key and body replays it without calling the provider again (`409 idempotency_key_reused` with another body).',
          schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
        },
        RequestId: {
          name: 'X-Request-Id',
          in: 'header',
          required: false,
          description: 'Your id for this request (echoed; else one is made).',
          schema: { type: 'string' },
        },
      },
      headers: {
        RequestId: { description: 'The request id (yours, or one made by the gateway); in every log line of the request.', schema: { type: 'string' } },
        NoStore: {
          description: 'The answer holds a secret (or is otherwise private): no cache may keep it.',
          required: true,
          schema: { type: 'string', const: 'no-store' },
        },
        RateLimitPolicy: {
          description:
            'The plan\'s limits this request was counted against (IETF RateLimit header fields): `"<name>";q=<quota>;w=<window seconds>`, comma-separated. Names: `requests` (API requests per second), for sends `sends` (per second) and `sends_per_day`, and for a campaign\'s creation `campaigns_per_day`.',
          schema: { type: 'string' },
        },
        RateLimit: {
          description: 'What is left of each limit of `RateLimit-Policy`: `"<name>";r=<remaining>;t=<seconds until its window ends>`, comma-separated.',
          schema: { type: 'string' },
        },
        MessageId: {
          description: "The provider's message id of the send (`wamid.…`): its status is `GET /api/messages/{message_id}`.",
          schema: { type: 'string' },
        },
      },
    },
  };
}
