import { FormData } from 'undici';
import { AppError } from '@gateway/errors';
import type { Logger } from '@gateway/logger';
import { acceptCallBody, blockUsersBody, markReadBody } from './bodies';
import { CallingCalls } from './calls';
import { ProviderHttp, type ProviderCallObserver } from './http';
import { MediaCalls, MediaHosts, type MediaDownload, type MediaDownloadLimits, type MediaUpload, type ProviderMediaInfo } from './media';
import { TemplateCalls } from './templates';

export interface ProviderClientOptions {
  baseUrl: string;
  apiVersion: string;
  timeoutMs: number;
  /** The User-Agent of every request (default DEFAULT_USER_AGENT); the provider's media host refuses downloads without one. */
  userAgent?: string;
  appId?: string;
  appSecret?: string;
  logger?: Logger;
  /** Told every call's final outcome (operation, ok or error kind, provider error code, duration): pass `metrics.providerCall`. */
  observer?: ProviderCallObserver;
  /**
   * Hosts (or origins) media may be downloaded from besides the Graph API's own origin: the provider's media
   * download host (supplement §3). Default: none.
   */
  mediaHosts?: string[];
}

type Json = Record<string, unknown>;

export interface SendResult {
  messageId: string;
  waId?: string;
}

export interface BlockResult {
  /** Users blocked (or unblocked), as the provider echoed them. */
  done: Array<{ input: string; wa_id?: string }>;
  /** Users it could not block or unblock, with the provider's errors. Never hidden. */
  failed: Array<{ input: string; errors: unknown[] }>;
}

export interface FlowValidationError {
  error?: string;
  error_type?: string;
  message?: string;
  line_start?: number;
  line_end?: number;
  column_start?: number;
  column_end?: number;
  pointers?: Array<{ line_start?: number; line_end?: number; column_start?: number; column_end?: number; path?: string }>;
}

export interface ProviderFlow {
  id: string;
  name?: string;
  status?: string;
  categories?: string[];
  validation_errors?: FlowValidationError[];
  json_version?: string;
  whatsapp_business_account?: { id: string };
}

const FLOW_FIELDS = 'id,name,status,categories,validation_errors,json_version,whatsapp_business_account';
/**
 * Registration is repeatable (the same PIN) and its transient refusal (133004, "temporarily unavailable") can last
 * seconds: a longer bounded backoff than other calls', inside the signup's own deadline.
 */
const REGISTRATION_RETRY_DELAYS_MS = [250, 1000, 4000];

/** A business account has at most a few hundred flows; more pages than this means the paging is broken. */
const MAX_LIST_PAGES = 50;

/**
 * One method per provider operation the gateway uses, each building its request body in one place (bodies.ts, or
 * inline where only that method sends it). Message bodies are built by the sender (messaging) exactly as the
 * provider documents them; this class owns transport, auth and error classification.
 */
export class ProviderClient {
  private readonly http: ProviderHttp;
  /** The template management API (templates.ts). */
  readonly templates: TemplateCalls;
  /** The Calling API (provider-2026.md §7). */
  readonly calling: CallingCalls;
  private readonly media: MediaCalls;

  constructor(private readonly opts: ProviderClientOptions) {
    this.http = new ProviderHttp(opts);
    this.templates = new TemplateCalls(this.http);
    this.calling = new CallingCalls(this.http);
    this.media = new MediaCalls(this.http, new MediaHosts(opts.baseUrl, opts.mediaHosts ?? []));
  }

  // ---- Media (supplement §3; media.ts)

  /** Streams a file to POST /{phone_number_id}/media (multipart: messaging_product, type, file) → the media id. */
  uploadMedia(token: string, phoneNumberId: string, upload: MediaUpload): Promise<{ id: string }> {
    return this.media.upload(token, phoneNumberId, upload);
  }

  /** GET /{media_id}?phone_number_id=: the short-lived URL, type, hash and size; an unknown id is `404 media_not_found`. */
  mediaInfo(token: string, mediaId: string, phoneNumberId: string): Promise<ProviderMediaInfo> {
    return this.media.info(token, mediaId, phoneNumberId);
  }

  /** Downloads a media URL from mediaInfo with the token: only the provider's hosts, no redirects, bounded. */
  downloadMedia(token: string, info: ProviderMediaInfo, limits: MediaDownloadLimits): Promise<MediaDownload> {
    return this.media.download(token, info, limits);
  }

  /** DELETE /{media_id}?phone_number_id=. */
  deleteMedia(token: string, mediaId: string, phoneNumberId: string): Promise<void> {
    return this.media.delete(token, mediaId, phoneNumberId);
  }

  /** POST /{phone_number_id}/messages with a message (§1); never retried once it may have been sent. */
  async sendMessage(token: string, phoneNumberId: string, payload: Json): Promise<SendResult> {
    const res = await this.http.call<{ messages?: Array<{ id?: string }>; contacts?: Array<{ wa_id?: string }> }>({
      method: 'POST',
      path: `${phoneNumberId}/messages`,
      token,
      json: payload,
      idempotent: false,
      pair: typeof payload.to === 'string' ? `${phoneNumberId}:${payload.to.replace(/^\+/, '')}` : undefined,
    });
    const messageId = res.messages?.[0]?.id;
    if (!messageId) throw new AppError('unavailable', 'provider_bad_response', 'The provider accepted the message but returned no message id');
    return { messageId, waId: res.contacts?.[0]?.wa_id };
  }

  /** Read receipt, optionally with a typing indicator (§2): same endpoint, `{"success": true}`. Safe to repeat. */
  async markRead(token: string, phoneNumberId: string, messageId: string, typing = false): Promise<void> {
    await this.http.call({
      method: 'POST',
      path: `${phoneNumberId}/messages`,
      token,
      json: markReadBody(messageId, typing),
      idempotent: true,
    });
  }

  /**
   * POST (block) or DELETE (unblock) /{phone_number_id}/block_users (§3). Failed users come back as data,
   * also when every user failed (the provider then answers error 139100 with `block_users.failed_users`).
   */
  async blockUsers(token: string, phoneNumberId: string, users: string[], block: boolean): Promise<BlockResult> {
    const res = await this.http.call<{
      block_users?: { added_users?: BlockResult['done']; removed_users?: BlockResult['done']; failed_users?: Array<{ input: string; errors?: unknown[] }> };
    }>({
      method: block ? 'POST' : 'DELETE',
      path: `${phoneNumberId}/block_users`,
      token,
      json: blockUsersBody(users),
      idempotent: true,
      dataOnError: (body) => Array.isArray((body as { block_users?: { failed_users?: unknown } }).block_users?.failed_users),
    });
    const b = res.block_users ?? {};
    return {
      done: (block ? b.added_users : b.removed_users) ?? [],
      failed: (b.failed_users ?? []).map((f) => ({ input: f.input, errors: f.errors ?? [] })),
    };
  }

  /** POST /{phone_number_id}/calls (§4); call actions are not retried once sent. */
  async callAction(token: string, phoneNumberId: string, payload: Json): Promise<void> {
    await this.http.call({ method: 'POST', path: `${phoneNumberId}/calls`, token, json: payload, idempotent: false });
  }

  /** Accepts a user-initiated call with the agent's SDP answer. */
  acceptCall(token: string, phoneNumberId: string, callId: string, sdp: string): Promise<void> {
    return this.callAction(token, phoneNumberId, acceptCallBody(callId, sdp));
  }

  // ---- Flows (§5)

  /**
   * POST /{waba_id}/flows: a new draft (`flowJson` is the Flow JSON text; `cloneFlowId` copies another flow
   * of the account). Validation errors of the JSON come back as data: the flow exists even with them.
   */
  async createFlow(
    token: string,
    wabaId: string,
    input: { name: string; categories: string[]; flowJson?: string; cloneFlowId?: string; endpointUri?: string },
  ): Promise<{ id: string; validationErrors: FlowValidationError[] }> {
    const res = await this.http.call<{ id?: string; validation_errors?: FlowValidationError[] }>({
      method: 'POST',
      path: `${wabaId}/flows`,
      token,
      json: {
        name: input.name,
        categories: input.categories,
        ...(input.flowJson !== undefined ? { flow_json: input.flowJson } : {}),
        ...(input.cloneFlowId !== undefined ? { clone_flow_id: input.cloneFlowId } : {}),
        ...(input.endpointUri !== undefined ? { endpoint_uri: input.endpointUri } : {}),
      },
      // a repeat would create a second flow (or fail on the now-taken name)
      idempotent: false,
    });
    if (!res.id) throw new AppError('unavailable', 'provider_bad_response', 'The provider created the flow but returned no id');
    return { id: res.id, validationErrors: res.validation_errors ?? [] };
  }

  getFlow(token: string, flowId: string): Promise<ProviderFlow> {
    return this.http.call<ProviderFlow>({ method: 'GET', path: flowId, token, query: { fields: FLOW_FIELDS }, idempotent: true });
  }

  /** GET /{waba_id}/flows, every page (the provider pages with `paging.cursors.after` while `paging.next` is set). */
  async listFlows(token: string, wabaId: string): Promise<ProviderFlow[]> {
    const flows: ProviderFlow[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const res = await this.http.call<{ data?: ProviderFlow[]; paging?: { next?: string; cursors?: { after?: string } } }>({
        method: 'GET',
        path: `${wabaId}/flows`,
        token,
        query: { fields: FLOW_FIELDS, limit: '100', ...(after ? { after } : {}) },
        idempotent: true,
      });
      flows.push(...(res.data ?? []));
      after = res.paging?.cursors?.after;
      if (!res.paging?.next || !after) return flows;
    }
    throw new AppError('unavailable', 'provider_bad_response', `The provider listed more than ${MAX_LIST_PAGES} pages of flows`);
  }

  /** Uploads the Flow JSON as multipart/form-data (`asset_type=FLOW_JSON`); the provider keeps it even with errors. */
  async uploadFlowJson(token: string, flowId: string, json: string): Promise<FlowValidationError[]> {
    const form = new FormData();
    form.append('name', 'flow.json');
    form.append('asset_type', 'FLOW_JSON');
    form.append('file', new Blob([json], { type: 'application/json' }), 'flow.json');
    const res = await this.http.call<{ validation_errors?: FlowValidationError[] }>({
      method: 'POST',
      path: `${flowId}/assets`,
      token,
      form,
      idempotent: true,
    });
    return res.validation_errors ?? [];
  }

  /**
   * The flow's current Flow JSON text, or null when it has none: GET /{flow_id}/assets, then its FLOW_JSON
   * asset's `download_url` (a signed CDN link: fetched without our token).
   */
  async downloadFlowJson(token: string, flowId: string): Promise<string | null> {
    const res = await this.http.call<{ data?: Array<{ asset_type?: string; download_url?: string }> }>({
      method: 'GET',
      path: `${flowId}/assets`,
      token,
      idempotent: true,
    });
    const url = res.data?.find((a) => a.asset_type === 'FLOW_JSON')?.download_url;
    return url ? this.http.download(url) : null;
  }

  async publishFlow(token: string, flowId: string): Promise<void> {
    await this.http.call({ method: 'POST', path: `${flowId}/publish`, token, idempotent: false });
  }

  async deprecateFlow(token: string, flowId: string): Promise<void> {
    await this.http.call({ method: 'POST', path: `${flowId}/deprecate`, token, idempotent: false });
  }

  async deleteFlow(token: string, flowId: string): Promise<void> {
    await this.http.call({ method: 'DELETE', path: flowId, token, idempotent: false });
  }

  // ---- Embedded signup (§6.2)

  /** Exchanges the embedded-signup code for the business's access token (codes are single-use: no retry). */
  async exchangeCode(code: string): Promise<{ accessToken: string }> {
    if (!this.opts.appId || !this.opts.appSecret)
      throw new AppError('internal', 'provider_app_unconfigured', 'PROVIDER_APP_ID and PROVIDER_APP_SECRET are required');
    const res = await this.http.call<{ access_token?: string }>({
      method: 'GET',
      path: 'oauth/access_token',
      query: { client_id: this.opts.appId, client_secret: this.opts.appSecret, code },
      idempotent: false,
    });
    if (!res.access_token) throw new AppError('provider_rejected', 'provider_error', 'The provider returned no access token');
    return { accessToken: res.access_token };
  }

  /**
   * POST /{phone_number_id}/register with the 6-digit two-step verification PIN → `{"success": true}`. Repeatable
   * (the same PIN again), so retried on the transient refusals (133004) with REGISTRATION_RETRY_DELAYS_MS.
   */
  async registerPhone(token: string, phoneNumberId: string, pin: string): Promise<void> {
    const res = await this.http.call<{ success?: boolean }>({
      method: 'POST',
      path: `${phoneNumberId}/register`,
      token,
      json: { messaging_product: 'whatsapp', pin },
      idempotent: true,
      retryDelaysMs: REGISTRATION_RETRY_DELAYS_MS,
    });
    confirmed(res, 'register the phone number');
  }

  /** POST /{waba_id}/subscribed_apps with an empty body (no callback override) → `{"success": true}`. */
  async subscribeApp(token: string, wabaId: string): Promise<void> {
    const res = await this.http.call<{ success?: boolean }>({ method: 'POST', path: `${wabaId}/subscribed_apps`, token, idempotent: true });
    confirmed(res, 'subscribe the app to the business account');
  }

  async listCatalogs(token: string, wabaId: string): Promise<Array<{ id: string; name?: string }>> {
    const res = await this.http.call<{ data?: Array<{ id: string; name?: string }> }>({
      method: 'GET',
      path: `${wabaId}/product_catalogs`,
      token,
      idempotent: true,
    });
    return res.data ?? [];
  }

  close(): Promise<void> {
    return this.http.close();
  }
}

/** Graph answers some writes with HTTP 200 and `{"success": false}`: that is a refusal, not a success. */
function confirmed(res: { success?: boolean }, what: string): void {
  if (res.success !== false) return;
  const info = {
    code: null,
    subcode: null,
    message: `The provider answered success: false (${what})`,
    type: null,
    trace_id: null,
    details: null,
    user_title: null,
    user_message: null,
  };
  throw new AppError('provider_rejected', 'provider_error', `The provider did not ${what}`, { details: { provider_error: info } });
}
