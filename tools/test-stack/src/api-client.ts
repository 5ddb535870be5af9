import { openApiCheck, recordChecked } from './openapi-check';

/**
 * A small fetch wrapper for tests: JSON in, status/headers/text/json out. Every response is checked against the
 * edge's OpenAPI document (openapi-check.ts): an undocumented status, field or header throws.
 */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

export class ApiClient {
  constructor(readonly baseUrl: string, readonly token?: string) {}

  async request<T = unknown>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const h: Record<string, string> = { ...headers };
    if (this.token) h.authorization = `Bearer ${this.token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      payload = typeof body === 'string' ? body : JSON.stringify(body);
      h['content-type'] ??= 'application/json';
    }
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers: h, body: payload });
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    const out = { status: res.status, headers: res.headers, text, json: json as T };
    const operationId = (await openApiCheck(this.baseUrl)).check(method, path, out);
    if (operationId) recordChecked(operationId);
    return out;
  }

  get<T = unknown>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body, headers);
  }
  put<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PUT', path, body, headers);
  }
  patch<T = unknown>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('PATCH', path, body, headers);
  }
  delete<T = unknown>(path: string, headers?: Record<string, string>) {
    return this.request<T>('DELETE', path, undefined, headers);
  }
}
