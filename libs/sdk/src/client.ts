import createClient, { type Client, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './generated/openapi';

export type Schemas = components['schemas'];
export type ValidationIssue = Schemas['ValidationIssue'];
export type ProviderError = Schemas['ProviderError'];
/** `GET /api/usage`: the plan, each quota's use, sends and deliveries per day (docs/business.md). */
export type Usage = operations['getUsage']['responses'][200]['content']['application/json'];
/** `GET /api/stats`: messages per day by direction and status, webhook deliveries per day by outcome (docs/conversations.md). */
export type Stats = operations['getStats']['responses'][200]['content']['application/json'];

/**
 * Any answer other than 2xx, as an error: `status`, the stable `code` (`validation_failed` for a 422 without
 * one), `detail` (a message, or the list of every problem of a 422), `provider_error` when the provider refused,
 * `retryAfter` (seconds) when the gateway said when to retry, and the request id to quote.
 */
export class GatewayError extends Error {
  readonly status: number;
  readonly code: string;
  readonly detail: string | ValidationIssue[];
  readonly providerError?: ProviderError;
  readonly retryable?: boolean;
  readonly retryAfter?: number;
  readonly requestId?: string;
  /** The whole body, for fields some errors carry (`failed_users`, `outcome`...). */
  readonly body: Record<string, unknown>;

  constructor(status: number, body: Record<string, unknown>, headers: Headers) {
    const detail = (body.detail ?? `HTTP ${status}`) as string | ValidationIssue[];
    const code = typeof body.code === 'string' ? body.code : status === 422 ? 'validation_failed' : `http_${status}`;
    super(typeof detail === 'string' ? `${status} ${code}: ${detail}` : `${status} ${code}: ${detail.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; ')}`);
    this.name = 'GatewayError';
    this.status = status;
    this.code = code;
    this.detail = detail;
    this.body = body;
    this.providerError = body.provider_error as ProviderError | undefined;
    this.retryable = typeof body.retryable === 'boolean' ? body.retryable : undefined;
    const retryAfter = Number(headers.get('retry-after'));
    this.retryAfter = Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined;
    this.requestId = headers.get('x-request-id') ?? undefined;
  }

  /** The problems of a 422 (empty for other errors). */
  get issues(): ValidationIssue[] {
    return Array.isArray(this.detail) ? this.detail : [];
  }
}

export interface GatewayOptions {
  /** The gateway's base URL, e.g. `https://gateway.example.com`. */
  baseUrl: string;
  /** A tenant API key (`gw_…`) or, for `/admin`, the operator token. */
  apiKey?: string;
  /** Another fetch (tests, proxies). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** A fresh `Idempotency-Key` (a UUID): keep it with the request and send it again on a retry. */
// the Web Crypto API: Node 20 and every browser have it (the dashboard uses this SDK too)
export const newIdempotencyKey = (): string => globalThis.crypto.randomUUID();

/** `{ 'Idempotency-Key': key }` for a call's `params.header`. */
export const idempotent = (key: string = newIdempotencyKey()) => ({ 'Idempotency-Key': key });

/** A page of a cursor-paginated list. */
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/**
 * Every item of a cursor-paginated list, page by page: `fetchPage` gets the cursor of the next page (undefined
 * for the first) and the loop ends on the page whose `next_cursor` is null.
 */
export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<T> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
}

/** Every item of a cursor-paginated list in one array. */
export async function listAll<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of paginate(fetchPage)) out.push(item);
  return out;
}

/** Turns every non-2xx answer into a thrown GatewayError, so a call's `data` is its success body. */
const throwOnError: Middleware = {
  async onResponse({ response }) {
    if (response.ok) return undefined;
    const text = await response.clone().text();
    let body: Record<string, unknown>;
    try {
      body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      body = { detail: text };
    }
    throw new GatewayError(response.status, body && typeof body === 'object' ? body : { detail: String(body) }, response.headers);
  },
};

/** Sends: the JSON bodies of /api/messaging/*, by path. */
type SendPath = Extract<keyof paths, `/api/messaging/send-${string}`>;
type SendBody<P extends SendPath> = paths[P]['post'] extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;

/**
 * The gateway's API, typed from its OpenAPI document: `api` is an openapi-fetch client (`api.GET('/api/clients',
 * {params: {query: {limit: 50}}})`) whose non-2xx answers throw GatewayError; the methods below are shortcuts for
 * what most integrations do.
 */
export class Gateway {
  readonly api: Client<paths>;
  readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly headers: Record<string, string>;

  constructor(opts: GatewayOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = opts.fetch ?? ((...args) => fetch(...args));
    this.headers = { ...(opts.headers ?? {}), ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) };
    this.api = createClient<paths>({ baseUrl: this.baseUrl, headers: this.headers, fetch: this.fetchImpl });
    this.api.use(throwOnError);
  }

  /**
   * Sends a message (`/api/messaging/send-*`) and answers the provider's message id. Without an `idempotencyKey`
   * one is made: pass your own (kept with the message) to make a retry after a network failure safe.
   */
  async send<P extends SendPath>(path: P, body: SendBody<P>, opts: { idempotencyKey?: string } = {}): Promise<{ messageId: string; idempotencyKey: string }> {
    const idempotencyKey = opts.idempotencyKey ?? newIdempotencyKey();
    const post = this.api.POST as unknown as (p: string, init: unknown) => Promise<{ response: Response }>;
    const { response } = await post(path, { body, params: { header: idempotent(idempotencyKey) } });
    const messageId = response.headers.get('x-message-id');
    if (!messageId) throw new Error(`${path} answered ${response.status} without X-Message-Id`);
    return { messageId, idempotencyKey };
  }

  /** Every client of the tenant (all pages). */
  async listClients(): Promise<Array<Schemas['Client']>> {
    return listAll(async (cursor) => (await this.api.GET('/api/clients', { params: { query: { limit: 100, cursor } } })).data!);
  }

  /** A client's webhook deliveries, newest first, page after page (filters as the API's). */
  deliveries(
    clientId: string,
    filter: { status?: Schemas['Delivery']['status']; event_type?: Schemas['Delivery']['event_type']; limit?: number } = {},
  ): AsyncGenerator<Schemas['Delivery']> {
    return paginate(
      async (cursor) =>
        (await this.api.GET('/api/clients/{id}/webhook/deliveries', { params: { path: { id: clientId }, query: { ...filter, cursor } } })).data!,
    );
  }

  /**
   * Any request, untyped: the SDK's base URL, credentials and headers, the body as given (an object is sent as
   * JSON, a string as is, a FormData as `multipart/form-data`: `POST /api/media`). Errors are not thrown: the
   * Response is returned as it came.
   */
  raw(method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...this.headers, ...(init.headers ?? {}) };
    let body: string | FormData | undefined;
    if (init.body instanceof FormData) {
      // fetch writes the multipart body and its Content-Type with the boundary
      body = init.body;
    } else if (init.body !== undefined) {
      body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    // a redirect is answered as it is (308 and its Location), not followed
    return this.fetchImpl(`${this.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  }
}
