/**
 * What `POST /_sim/embedded-signup` answers. Written here, not imported from the simulator: the test tooling imports
 * no product project, so that no project's tests depend on an app; the simulator's own test pins the two as one shape.
 */
export interface Onboarded {
  code: string;
  waba_id: string;
  phone_number_id: string;
  business_id: string;
  catalog_id: string | null;
}

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
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (res.status === 204 ? undefined : await res.json()) as T };
  }

  /** One control call that must succeed: its JSON body (undefined for 204). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- callers read arbitrary simulator JSON
  async send<T = any>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
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
    return this.send('POST', '/_sim/faults', {
      match: { method, path_contains: part },
      times,
      status: 400,
      error: { code: 100, message: `(#100) Injected failure of ${part}` },
    });
  }

  /** The next `times` Graph calls whose path contains `part` fail with this provider error code (HTTP `status`, default 400). */
  failWith(method: string, part: string, code: number, opts: { times?: number; status?: number; subcode?: number; message?: string } = {}): Promise<unknown> {
    return this.send('POST', '/_sim/faults', {
      match: { method, path_contains: part },
      times: opts.times ?? 1,
      status: opts.status ?? 400,
      error: {
        code,
        message: opts.message ?? `(#${code}) Injected failure of ${part}`,
        ...(opts.subcode === undefined ? {} : { error_subcode: opts.subcode }),
      },
    });
  }

  /**
   * The 24-hour customer-service window for free-form sends: `async` (the provider's usual behaviour and the
   * default: accepted, then a `failed` status with 131047), `sync` (refused at once with 131047), `off`.
   */
  setWindow(mode: 'async' | 'sync' | 'off'): Promise<{ mode: string }> {
    return this.send('PUT', '/_sim/window', { mode });
  }

  /** Whether every accepted message gets its status webhooks by itself (off in tests unless a test turns it on). */
  autoStatuses(enabled: boolean): Promise<unknown> {
    return this.send('PUT', '/_sim/auto-statuses', { enabled });
  }

  /**
   * Auto-statuses' plan, deterministic: every `skip_delivered_every`-th message goes sent → read without
   * `delivered` (0: never; `reset_count` restarts the count), voice messages get `played` after `read`.
   */
  statusPlan(plan: { skip_delivered_every?: number; played_for_voice?: boolean; reset_count?: boolean }): Promise<unknown> {
    return this.send('PUT', '/_sim/status-plan', plan);
  }

  /** The statuses auto-statuses report for the next message to `to` (once), e.g. `['sent', 'read']`. */
  scriptStatuses(to: string, statuses: string[]): Promise<unknown> {
    return this.send('PUT', '/_sim/status-script', { to, statuses });
  }

  /**
   * Status webhooks of a sent message now, in this order; a `failed` one with `errors` (default 131026) on the
   * status, in the value, or both (`errorLevel`, default both).
   */
  sendStatuses(wamid: string, statuses: string[], opts: { errors?: unknown[]; errorLevel?: 'status' | 'value' | 'both' } = {}): Promise<unknown> {
    return this.send('POST', `/_sim/messages/${encodeURIComponent(wamid)}/statuses`, {
      statuses,
      ...(opts.errors ? { errors: opts.errors } : {}),
      ...(opts.errorLevel ? { error_level: opts.errorLevel } : {}),
    });
  }

  /** A business number's own throughput limit (messages per second, any one-second window; 130429 beyond); null: the simulator's. */
  setThroughput(phoneNumberId: string, perSecond: number | null): Promise<unknown> {
    return this.send('PUT', `/_sim/phone-numbers/${encodeURIComponent(phoneNumberId)}/throughput`, { per_second: perSecond });
  }

  /**
   * The messaging limit of the number's business portfolio (unique users outside a service window per rolling 24
   * hours; beyond it a template is accepted, then fails with 131049): a provider tier (`TIER_250`…
   * `TIER_UNLIMITED`) or a test-sized `unique_users`. The provider's `business_capability_update` webhook announces
   * it unless `notify` is false.
   */
  setMessagingLimit(
    phoneNumberId: string,
    limit: { tier: string } | { unique_users: number },
    opts: { notify?: boolean } = {},
  ): Promise<{ business_id: string; unique_users: number | null; used: number }> {
    return this.send('PUT', `/_sim/phone-numbers/${encodeURIComponent(phoneNumberId)}/messaging-limit`, { ...limit, notify: opts.notify ?? true });
  }

  /** Every send attempt of a number as it arrived at the simulator (`at` in ms), and whether its throughput let it through. */
  async sends(phoneNumberId: string): Promise<Array<{ at: number; to: string; accepted: boolean }>> {
    return (
      await this.send<{ sends: Array<{ at: number; to: string; accepted: boolean }> }>('GET', `/_sim/phone-numbers/${encodeURIComponent(phoneNumberId)}/sends`)
    ).sends;
  }

  /** A user stops or resumes the business's marketing messages: the `user_preferences` webhook (then 131050 on marketing sends). */
  userPreferences(phoneNumberId: string, from: string, value: 'stop' | 'resume'): Promise<unknown> {
    return this.send('POST', '/_sim/inbound/user-preferences', { phone_number_id: phoneNumberId, from, value });
  }

  /** Moves the simulator's clock `ms` ahead (media ids, 24-hour windows, tokens expire by it). */
  advanceClock(ms: number): Promise<{ now: string; offset_ms: number }> {
    return this.send('PUT', '/_sim/clock', { advance_ms: ms });
  }

  /** Puts the simulator's clock back to real time. */
  resetClock(): Promise<{ now: string; offset_ms: number }> {
    return this.send('PUT', '/_sim/clock', { offset_ms: 0 });
  }

  /** The two-step verification PIN the business set on a number itself (registration must then present it); null removes it. */
  setTwoStepPin(phoneNumberId: string, pin: string | null): Promise<unknown> {
    return this.send('PUT', `/_sim/phone-numbers/${encodeURIComponent(phoneNumberId)}/two-step`, { pin });
  }

  /** Registration limits: register calls per number in a window (133016), wrong PINs before a lock (133008). */
  registrationLimits(limits: { attempts?: number; attempts_window_ms?: number; pin_guesses?: number; pin_lock_ms?: number }): Promise<unknown> {
    return this.send('PUT', '/_sim/registration-limits', limits);
  }

  /** The media host's downloads so far, with the User-Agent each sent. */
  async mediaDownloads(): Promise<Array<{ at: string; user_agent: string | null }>> {
    return (await this.send<{ downloads: Array<{ at: string; user_agent: string | null }> }>('GET', '/_sim/media-downloads')).downloads;
  }

  /**
   * How new templates are reviewed (`auto` after `delay_ms`, or `manual`), whether sends are checked against them,
   * and how many a business account may create per hour (100, like the provider).
   */
  templateReview(opts: { mode?: 'auto' | 'manual'; delay_ms?: number; enforce?: boolean; creations_per_hour?: number }): Promise<unknown> {
    return this.send('PUT', '/_sim/templates/review', opts);
  }

  /** Moves a template to a status (with its reason), as the provider's review does: the signed status webhook follows. */
  setTemplateStatus(templateId: string, status: string, reason?: string): Promise<unknown> {
    return this.send('POST', `/_sim/templates/${encodeURIComponent(templateId)}/status`, { status, ...(reason === undefined ? {} : { reason }) });
  }

  /** A template the business account already has (made in the provider's own tools), approved unless `status` says otherwise. */
  seedTemplate(wabaId: string, template: Record<string, unknown>): Promise<{ id: string; [k: string]: unknown }> {
    return this.send('POST', '/_sim/templates', { waba_id: wabaId, ...template });
  }

  /** The Graph calls recorded so far whose path contains `part`. */
  async calls(part: string): Promise<RecordedCall[]> {
    return (await this.requestLog({ pathContains: part })).calls;
  }

  /**
   * The recorded Graph calls (of `method`, with `pathContains` in their path), and how many older calls the log let go
   * since it was last emptied (it keeps the newest `SIM_REQUEST_LOG_MAX`): a count of calls is whole only at 0.
   */
  async requestLog(filter: { method?: string; pathContains?: string } = {}): Promise<{ calls: RecordedCall[]; dropped: number }> {
    const query = new URLSearchParams({
      ...(filter.method ? { method: filter.method } : {}),
      ...(filter.pathContains ? { path_contains: filter.pathContains } : {}),
    });
    const res = await fetch(`${this.url}/_sim/requests?${query.toString()}`);
    if (!res.ok) throw new Error(`simulator GET /_sim/requests: ${res.status} ${await res.text()}`);
    return { calls: (await res.json()) as RecordedCall[], dropped: Number(res.headers.get('x-sim-requests-dropped') ?? 0) };
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

  /**
   * A WhatsApp user of the number's portfolio (provider-2026.md §2): without `phone`, a username adopter whose
   * number the business never sees; `parent` gives them a parent BSUID too.
   */
  createUser(
    phoneNumberId: string,
    opts: { phone?: string; username?: string; parent?: boolean } = {},
  ): Promise<{ user_id: string; parent_user_id: string | null; username: string | null; wa_id: string | null }> {
    return this.send('POST', '/_sim/users', { phone_number_id: phoneNumberId, ...opts });
  }

  /** A message from a user made by `createUser` (named by BSUID: no `from` when their number is withheld). */
  inboundFromUser(
    phoneNumberId: string,
    userId: string,
    type = 'text',
    content?: Record<string, unknown>,
  ): Promise<{ wamid: string; status: number; body: { entry: Array<{ changes: Array<{ value: Record<string, unknown> }> }> } }> {
    return this.send('POST', '/_sim/inbound/message', {
      phone_number_id: phoneNumberId,
      user_id: userId,
      type,
      ...(content === undefined ? {} : { [type]: content }),
    });
  }

  /**
   * One change of a webhook field of 2026 (`account_update`, `standby`, `messaging_handovers`...) for the number:
   * the provider's example value, `value` instead, or with `merge`'s top-level keys. Answers the exact body sent.
   */
  webhookField(
    field: string,
    phoneNumberId: string,
    opts: { value?: unknown; merge?: Record<string, unknown>; userId?: string } = {},
  ): Promise<{ status: number | null; body: string }> {
    return this.send('POST', `/_sim/webhooks/${field}`, {
      phone_number_id: phoneNumberId,
      ...(opts.value === undefined ? {} : { value: opts.value }),
      ...(opts.merge ? { merge: opts.merge } : {}),
      ...(opts.userId ? { user_id: opts.userId } : {}),
    });
  }

  /** The business account accepts the Marketing Messages API terms: the provider's account_update MM_LITE_TERMS_SIGNED follows. */
  onboardMarketingMessages(wabaId: string): Promise<{ status: number | null; body: string }> {
    return this.send('POST', '/_sim/marketing-messages/onboard', { waba_id: wabaId });
  }

  /** Where the simulator's media URLs point from now on (a host the gateway must refuse, say); undefined restores its own. */
  /** A customer calls the business number: the `connect` webhook with the user's SDP offer; answers the call id. */
  inboundCall(phoneNumberId: string, from: string): Promise<{ call_id: string; status: number | null }> {
    return this.send('POST', '/_sim/inbound/call', { phone_number_id: phoneNumberId, from });
  }

  /**
   * The user's side of a call: `answer` or `decline` a ringing business-initiated call, `hangup`, or let an
   * unanswered call ring out (`timeout`); each sends the provider's webhooks.
   */
  callUser(callId: string, act: 'answer' | 'decline' | 'hangup' | 'timeout'): Promise<{ status: number | null }> {
    return this.send('POST', `/_sim/calls/${encodeURIComponent(callId)}/${act}`, {});
  }

  /** The user answers the business's last call permission request (`accept`, for good when `permanent`, or `reject`). */
  callPermissionReply(
    phoneNumberId: string,
    from: string,
    response: 'accept' | 'reject',
    permanent = false,
  ): Promise<{ wamid: string; status: number | null }> {
    return this.send('POST', '/_sim/inbound/call-permission-reply', { phone_number_id: phoneNumberId, from, response, permanent });
  }

  setMediaBaseUrl(url: string | undefined): Promise<{ url: string }> {
    return this.send('PUT', '/_sim/media-base-url', { url: url ?? null });
  }

  /** Clears the injected faults and the recorded calls. */
  reset(): Promise<unknown> {
    return Promise.all([this.send('DELETE', '/_sim/faults'), this.send('DELETE', '/_sim/requests')]);
  }
}
