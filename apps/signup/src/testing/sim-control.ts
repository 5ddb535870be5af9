import type { Onboarded } from '@gateway/app-provider-sim';

export type { Onboarded };

/** The provider simulator's control API, as the signup tests use it. */

export interface RecordedCall {
  method: string;
  path: string;
  body: unknown;
}

export class SimControl {
  constructor(readonly url: string) {}

  private async send<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!res.ok) throw new Error(`simulator ${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  }

  /** What a customer finishing the provider's dialog produces: a business account, a number and a code. */
  onboard(opts: { withCatalog?: boolean; wabaId?: string } = {}): Promise<Onboarded> {
    return this.send('POST', '/_sim/embedded-signup', { with_catalog: opts.withCatalog ?? true, waba_id: opts.wabaId });
  }

  /** The next `times` Graph calls whose path contains `part` fail with a provider error. */
  fail(method: string, part: string, times = 1): Promise<unknown> {
    return this.send('POST', '/_sim/faults', { match: { method, path_contains: part }, times, status: 400, error: { code: 100, message: `(#100) Injected failure of ${part}` } });
  }

  async calls(part: string): Promise<RecordedCall[]> {
    return this.send('GET', `/_sim/requests?path_contains=${encodeURIComponent(part)}`);
  }

  reset(): Promise<unknown> {
    return Promise.all([this.send('DELETE', '/_sim/faults'), this.send('DELETE', '/_sim/requests')]);
  }
}
