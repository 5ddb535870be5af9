import type { Onboarded } from '@gateway/app-provider-sim';

export type { Onboarded };

/** One request the simulator recorded (`GET /_sim/requests`). */
export interface RecordedCall {
  method: string;
  path: string;
  body: unknown;
}

/** A control call's answer: the status and the parsed JSON body (undefined for 204). */
export interface SimReply<T> {
  status: number;
  json: T;
}

/**
 * The provider simulator's control API (`/_sim/*`): the one client every test, the test stack and the bench
 * use to script the simulator (accounts, faults, inbound traffic, recorded requests).
 */
export class SimControl {
  constructor(readonly url: string) {}

  /** One control call, whatever its status; the body is sent as JSON when given. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- callers read arbitrary simulator JSON
  async request<T = any>(method: string, path: string, body?: unknown): Promise<SimReply<T>> {
    const res = await fetch(`${this.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: (res.status === 204 ? undefined : await res.json()) as T };
  }

  /** One control call that must succeed: its JSON body (undefined for 204). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- callers read arbitrary simulator JSON
  async send<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`simulator ${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  }

  /** A business number with its account and token (what a tenant registers as a client). */
  phoneNumber(opts: { withCatalog?: boolean } = {}): Promise<{ phone_number_id: string; waba_id: string; access_token: string; catalog_id: string | null }> {
    return this.send('POST', '/_sim/phone-numbers', opts.withCatalog === undefined ? {} : { with_catalog: opts.withCatalog });
  }

  /** What a customer finishing the provider's dialog produces: a business account, a number and a code. */
  onboard(opts: { withCatalog?: boolean; wabaId?: string } = {}): Promise<Onboarded> {
    return this.send('POST', '/_sim/embedded-signup', { with_catalog: opts.withCatalog ?? true, waba_id: opts.wabaId });
  }

  /** Where the simulator posts its signed inbound webhooks. */
  setWebhook(url: string): Promise<unknown> {
    return this.send('PUT', '/_sim/webhook', { url });
  }

  /** The next `times` Graph calls whose path contains `part` fail with a provider error. */
  fail(method: string, part: string, times = 1): Promise<unknown> {
    return this.send('POST', '/_sim/faults', { match: { method, path_contains: part }, times, status: 400, error: { code: 100, message: `(#100) Injected failure of ${part}` } });
  }

  /** The Graph calls recorded so far whose path contains `part`. */
  calls(part: string): Promise<RecordedCall[]> {
    return this.send('GET', `/_sim/requests?path_contains=${encodeURIComponent(part)}`);
  }

  /** Clears the injected faults and the recorded calls. */
  reset(): Promise<unknown> {
    return Promise.all([this.send('DELETE', '/_sim/faults'), this.send('DELETE', '/_sim/requests')]);
  }
}
