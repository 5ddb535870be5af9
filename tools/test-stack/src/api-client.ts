import { Gateway } from '@gateway/sdk';
import { checkAnswer } from './openapi-check';

/**
 * A small fetch wrapper for tests: JSON in, status/headers/text/json out. Every response is checked against the
 * edge's OpenAPI document (openapi-check.ts): an undocumented status, field or header throws. Requests go through
 * the SDK's (`@gateway/sdk`) request layer (base URL, credentials), as a tenant's code would; `sdk` is the typed client.
 */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  json: T;
}

export class ApiClient {
  /** The typed SDK client with this client's credentials (its answers are checked against the document too). */
  readonly sdk: Gateway;

  constructor(
    readonly baseUrl: string,
    readonly token?: string,
  ) {
    this.sdk = new Gateway({ baseUrl, apiKey: token, fetch: (input, init) => this.checkedFetch(input, init) });
  }

  /** fetch for the SDK: every answer is checked against the document like the client's own. */
  private async checkedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const req = new Request(input, init);
    const res = await fetch(req);
    const text = await res.clone().text();
    const url = new URL(req.url);
    await checkAnswer(this.baseUrl, req.method, `${url.pathname}${url.search}`, { status: res.status, headers: res.headers, text });
    return res;
  }

  async request<T = unknown>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<T>> {
    const res = await this.sdk.raw(method, path, { body, headers });
    const text = await res.text();
    let json: unknown = undefined;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    // checked against the document in checkedFetch
    return { status: res.status, headers: res.headers, text, json: json as T };
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
