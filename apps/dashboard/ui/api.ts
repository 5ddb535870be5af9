import { Gateway, type Schemas, type Stats as StatsAnswer, type Usage as UsageAnswer } from '@gateway/sdk/client';

/**
 * Calls the gateway's public routes with the session cookie (sent by the browser, never readable here) and,
 * on every state-changing request, the session's CSRF token. The API key itself is never kept by the page.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

export interface ValidationItem {
  loc: string[];
  msg: string;
  type: string;
  ctx?: Record<string, unknown>;
}

let csrfToken = '';
let onSignedOut: () => void = () => undefined;

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Called when a request finds the session ended (expired, signed out elsewhere, key revoked). */
export function whenSignedOut(fn: () => void): void {
  onSignedOut = fn;
}

function messageOf(status: number, body: unknown): string {
  if (body && typeof body === 'object' && 'detail' in body) {
    const detail = (body as { detail: unknown }).detail;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) return (detail as ValidationItem[]).map((d) => `${d.loc.slice(1).join('.') || d.loc[0]}: ${d.msg}`).join('; ');
  }
  return `Request failed (${status})`;
}

/**
 * The SDK's request layer on the page's origin, without a key: the browser sends the session cookie
 * (same-origin credentials) and nothing is cached.
 */
const gateway = new Gateway({
  baseUrl: '',
  headers: { accept: 'application/json' },
  fetch: (input, init) => fetch(input, { ...init, credentials: 'same-origin', cache: 'no-store' }),
});

export async function call<T>(method: string, path: string, body?: unknown, opts: { signInCall?: boolean } = {}): Promise<T> {
  return (await request<T>(method, path, body, opts)).data;
}

/**
 * Like `call`, with the answer's headers too (a send's `X-Message-Id`). A `Blob` body (a file the user picked)
 * is streamed as it is, with its `contentType`; anything else is sent as JSON.
 */
export async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  opts: { signInCall?: boolean; contentType?: string } = {},
): Promise<{ data: T; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res =
      body instanceof Blob
        ? await fetch(path, {
            method,
            body,
            headers: { ...headers, accept: 'application/json', 'content-type': opts.contentType ?? body.type },
            credentials: 'same-origin',
            cache: 'no-store',
          })
        : await gateway.raw(method, path, { body, headers });
  } catch {
    throw new ApiError(0, 'network_error', 'The gateway could not be reached. Check your connection and try again.', null);
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const code =
      json && typeof json === 'object' && 'code' in json ? String((json as { code: unknown }).code) : res.status === 422 ? 'validation_failed' : 'error';
    if (res.status === 401 && !opts.signInCall) onSignedOut();
    throw new ApiError(res.status, code, messageOf(res.status, json), json);
  }
  return { data: json as T, headers: res.headers };
}

export const get = <T>(path: string) => call<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => call<T>('POST', path, body);
export const put = <T>(path: string, body?: unknown) => call<T>('PUT', path, body);
export const patch = <T>(path: string, body?: unknown) => call<T>('PATCH', path, body);
export const del = <T>(path: string) => call<T>('DELETE', path);

export const q = (params: Record<string, string | number | undefined | null>): string => {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') s.set(k, String(v));
  const str = s.toString();
  return str ? `?${str}` : '';
};

// Records as the API answers them: the SDK's types, generated from the gateway's OpenAPI document.
export type Session = Schemas['Session'];
export type Client = Schemas['Client'];
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
export type Delivery = Schemas['Delivery'];
export type Attempt = Delivery['attempt_log'][number];
export type Flow = Schemas['Flow'];
export type Message = Schemas['Message'];
export type Contact = Schemas['Contact'];
export type Conversation = Schemas['Conversation'];
export type Tenant = Schemas['Tenant'];
export type ApiKey = Schemas['ApiKey'];
export type Template = Schemas['Template'];
export type SecretRotation = Schemas['SecretRotation'];
export type Call = Schemas['Call'];
export type CallingSettings = Schemas['CallingSettings'];
export type AuditEntry = Schemas['AuditEntry'];
export type Campaign = Schemas['Campaign'];
export type CampaignRecipient = Schemas['CampaignRecipient'];
export type Usage = UsageAnswer;
export type Stats = StatsAnswer;

/** Event types of the webhook envelope (docs/webhooks.md). */
export const EVENT_TYPES = ['chat', 'signup_completed', 'template_status', 'flow_completion', 'test', 'campaign_status'] as const;

/** The validation items of a 422 (empty for any other error). */
export function validationItems(err: unknown): ValidationItem[] {
  const body = err instanceof ApiError ? (err.body as { detail?: unknown } | null) : null;
  return Array.isArray(body?.detail) ? (body!.detail as ValidationItem[]) : [];
}
