/**
 * Calls the gateway's public routes with the session cookie (sent by the browser, never readable here) and,
 * on every state-changing request, the session's CSRF token. The API key itself is never kept by the page.
 */
export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly body: unknown) {
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

export async function call<T>(method: string, path: string, body?: unknown, opts: { signInCall?: boolean } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin', cache: 'no-store' });
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
    const code = json && typeof json === 'object' && 'code' in json ? String((json as { code: unknown }).code) : res.status === 422 ? 'validation_failed' : 'error';
    if (res.status === 401 && !opts.signInCall) onSignedOut();
    throw new ApiError(res.status, code, messageOf(res.status, json), json);
  }
  return json as T;
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

// Records as the API answers them (decisions.md).
export interface Session {
  tenant_id: string;
  api_key_prefix: string;
  csrf_token: string;
  expires_at: string;
  idle_expires_at: string;
}
export interface Client {
  id: string;
  display_name: string;
  is_active: boolean;
  signup_status: string;
  external_id: string | null;
  webhook_url: string | null;
  phone_number_id: string | null;
  business_account_id: string | null;
  embed_signup_url: string | null;
  created_at: string;
  /** Event types the client's webhook receives; empty: every type. */
  webhook_events: string[];
  webhook_status: 'active' | 'disabled';
  webhook_disabled_reason: string | null;
  webhook_disabled_at: string | null;
}
export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}
export interface Attempt {
  number: number;
  at: string;
  duration_ms: number;
  response_code: number | null;
  error: string | null;
}
export interface Delivery {
  id: string;
  event_id: string;
  event_type: string;
  client_id: string;
  url: string | null;
  status: string;
  attempts: number;
  response_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  attempt_log: Attempt[];
  body?: string;
}
export interface Flow {
  id: string;
  client_id: string;
  name: string;
  status: string;
  categories: string[];
  flow_json: unknown;
  validation_errors: Array<Record<string, unknown>>;
  created_at: string;
  updated_at: string;
}
export interface Message {
  id: string;
  client_id: string;
  to: string;
  kind: string;
  status: string;
  status_history: Array<{ status: string; at: string; errors?: unknown }>;
  created_at: string;
  updated_at: string;
}
export interface Tenant {
  id: string;
  name: string;
  email: string;
  plan: string;
  webhook_url: string | null;
  webhook_secret: string;
  active_wabas: number;
}
export interface ApiKey {
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  current: boolean;
}
export interface Template {
  id: string;
  client_id: string;
  name: string;
  language: string;
  category: string;
  status: string;
  components: unknown[];
  rejected_reason: string | null;
  quality: string | null;
  updated_at: string;
}
export interface SecretRotation {
  webhook_secret: string;
  previous_secret_expires_at: string;
}

/** Event types of the webhook envelope (docs/webhooks.md). */
export const EVENT_TYPES = ['chat', 'signup_completed', 'template_status', 'flow_completion', 'test'] as const;

/** The validation items of a 422 (empty for any other error). */
export function validationItems(err: unknown): ValidationItem[] {
  const body = err instanceof ApiError ? (err.body as { detail?: unknown } | null) : null;
  return Array.isArray(body?.detail) ? (body!.detail as ValidationItem[]) : [];
}
