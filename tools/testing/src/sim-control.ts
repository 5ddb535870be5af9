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

  /** A customer's message of any type (`text`, `location`, `contacts`...: `content` is the type's object). */
  inboundMessage(phoneNumberId: string, from: string, type: string, content?: Record<string, unknown> | unknown[]): Promise<{ wamid: string; status: number }> {
    return this.send('POST', '/_sim/inbound/message', { phone_number_id: phoneNumberId, from, type, ...(content === undefined ? {} : { [type]: content }) });
  }

  /**
   * A customer's media message (`image`, `document`, `audio`, `video`, `sticker`): the bytes (or a small real
   * sample of the type) become a media of the number whose id the message carries and which downloads as those bytes.
   */
  inboundMedia(
    phoneNumberId: string,
    from: string,
    type: 'image' | 'document' | 'audio' | 'video' | 'sticker',
    opts: { bytes?: Buffer; mimeType?: string; caption?: string; filename?: string } = {},
  ): Promise<{ wamid: string; media_id: string; sha256: string; status: number }> {
    return this.send('POST', '/_sim/inbound/media', {
      phone_number_id: phoneNumberId,
      from,
      type,
      ...(opts.bytes ? { content_base64: opts.bytes.toString('base64') } : {}),
      ...(opts.mimeType ? { mime_type: opts.mimeType } : {}),
      ...(opts.caption ? { caption: opts.caption } : {}),
      ...(opts.filename ? { filename: opts.filename } : {}),
    });
  }

  /** Where the simulator's media URLs point from now on (a host the gateway must refuse, say); undefined restores its own. */
  setMediaBaseUrl(url: string | undefined): Promise<{ url: string }> {
    return this.send('PUT', '/_sim/media-base-url', { url: url ?? null });
  }

  /** Clears the injected faults and the recorded calls. */
  reset(): Promise<unknown> {
    return Promise.all([this.send('DELETE', '/_sim/faults'), this.send('DELETE', '/_sim/requests')]);
  }
}
