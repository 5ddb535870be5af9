import type Joi from 'joi';
import type { Context, Next } from 'koa';
import { isPresenter, schemaOf, type AnyPresenter } from '../presenters/presenter';

/** A JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) or a `$ref` to one of the document's components. */
export type JsonSchema = { [keyword: string]: unknown };

export interface ResponseSpec {
  description: string;
  /** The body's schema; `null` for a JSON `null` body; absent for no body (204). */
  schema?: JsonSchema | null;
  /** Default `application/json`; several when the answer follows `Accept`. */
  contentType?: string | string[];
  /** Response headers beyond `X-Request-Id` (every response has it). */
  headers?: Record<string, { description: string; schema?: JsonSchema; required?: boolean }>;
  /** The body holds a secret (its presenter says so): the operation's answers are never stored (`noStore`). */
  secret?: boolean;
}

/**
 * What the OpenAPI document says about one route. Written beside the route (`router.post(path, operation({...}),
 * handler)`): the request parts are the same joi schemas the handler validates with, so the document cannot
 * describe other inputs than the ones accepted.
 */
export interface OperationSpec {
  /** Stable, named for the action (`sendButtons`, `registerClient`): the SDK's method names. */
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  request?: {
    path?: Joi.Schema;
    query?: Joi.Schema;
    headers?: Joi.Schema;
    /** A JSON body validated by this schema. */
    body?: Joi.Schema;
    /** A body read as bytes (not JSON-validated by joi): its content types and schemas. */
    rawBody?: Record<string, JsonSchema>;
  };
  /** Success responses by status. */
  responses: Record<number, ResponseSpec>;
  /** Error statuses this operation can answer beyond those its mount adds to every operation (see document.ts). */
  errors?: number[];
  /** Who may call it; default by mount: `/api` tenant (API key or dashboard session), `/admin` operator, others public. */
  security?: 'tenant' | 'admin' | 'session' | 'public';
  /** Takes `Idempotency-Key` (sends and other provider calls). */
  idempotent?: boolean;
  /** Not JSON: an HTML page or plain text (documented, but not part of the typed SDK). */
  hidden?: boolean;
  /**
   * Every answer carries `Cache-Control: no-store`. Default: when a response's body holds a secret (an API key, a
   * webhook secret, a CSRF token: its presenter is `secret`); set it for answers private for another reason.
   */
  noStore?: boolean;
}

/** Whether the operation's answers carry `Cache-Control: no-store` (operation() sets it, the document says it). */
export function noStoreOf(spec: OperationSpec): boolean {
  return spec.noStore ?? Object.values(spec.responses).some((r) => r.secret);
}

export const OPERATION = Symbol('openapi.operation');

export type DescribedMiddleware = ((ctx: Context, next: Next) => Promise<unknown>) & { [OPERATION]: OperationSpec };

/**
 * A pass-through middleware carrying the route's description: the document is built from the router's layers
 * (document.ts), so a route is described by adding this to its definition. It also names the operation for the
 * rest of the request (`ctx.state.operationId`).
 */
export function operation(spec: OperationSpec): DescribedMiddleware {
  const noStore = noStoreOf(spec);
  const mw = (ctx: Context, next: Next) => {
    ctx.state.operationId = spec.operationId;
    // before the handler: its errors, and whatever it answers, are never kept by a cache either
    if (noStore) ctx.set('Cache-Control', 'no-store');
    return next();
  };
  return Object.assign(mw, { [OPERATION]: spec });
}

export function specOf(fn: unknown): OperationSpec | undefined {
  return typeof fn === 'function' ? (fn as Partial<DescribedMiddleware>)[OPERATION] : undefined;
}

/** A router's route layer: its path's middleware. */
interface RouteLayer {
  stack: unknown[];
}

const kept = new WeakMap<RouteLayer, OperationSpec>();

/**
 * Notes each route's description on its layer. Call it before the router is handed to `app.use`: with tracing on,
 * the Koa instrumentation replaces the middleware of a router given to `app.use` with wrappers that carry no
 * description, and the document (built at its first request) would lose those routes.
 */
export function keepDescriptions(router: { stack: RouteLayer[] }): void {
  for (const layer of router.stack) {
    const spec = layer.stack.map(specOf).find(Boolean);
    if (spec) kept.set(layer, spec);
  }
}

/** The description of a route layer: on its middleware, or as kept by `keepDescriptions`. */
export function layerSpec(layer: RouteLayer): OperationSpec | undefined {
  return layer.stack.map(specOf).find(Boolean) ?? kept.get(layer);
}

export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** `{data: [item], next_cursor}`: a page of a cursor-paginated list. */
export const page = (item: string): JsonSchema => ({
  type: 'object',
  required: ['data', 'next_cursor'],
  additionalProperties: false,
  properties: {
    data: { type: 'array', items: ref(item) },
    next_cursor: { type: ['string', 'null'], description: 'Pass as `cursor` to get the next page; null on the last page.' },
  },
});

/** `{data: [item]}`: a whole list. */
export const list = (item: string): JsonSchema => ({
  type: 'object',
  required: ['data'],
  additionalProperties: false,
  properties: { data: { type: 'array', items: ref(item) } },
});

/** A JSON answer: a presenter's body (its schema, and whether it holds a secret), or a schema (`null`: the body `null`). */
export function json(description: string, body: AnyPresenter | JsonSchema | null, headers?: ResponseSpec['headers']): ResponseSpec {
  if (isPresenter(body)) return { description, schema: schemaOf(body), headers, ...(body.secret ? { secret: true } : {}) };
  return { description, schema: body, headers };
}
