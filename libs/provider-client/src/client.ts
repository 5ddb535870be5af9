import { FormData } from 'undici';
import { AppError } from '@gateway/errors';
import type { Logger } from '@gateway/logger';
import { ProviderHttp } from './http';

export interface ProviderClientOptions {
  baseUrl: string;
  apiVersion: string;
  timeoutMs: number;
  appId?: string;
  appSecret?: string;
  logger?: Logger;
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
 * One method per provider operation the gateway uses. Payloads for messages are built by the caller
 * (exactly as the provider documents them); this class owns transport, auth and error classification.
 */
export class ProviderClient {
  private readonly http: ProviderHttp;

  constructor(private readonly opts: ProviderClientOptions) {
    this.http = new ProviderHttp(opts);
  }

  /** POST /{phone_number_id}/messages with a message (§1); never retried once it may have been sent. */
  async sendMessage(token: string, phoneNumberId: string, payload: Json): Promise<SendResult> {
    const res = await this.http.call<{ messages?: Array<{ id?: string }>; contacts?: Array<{ wa_id?: string }> }>({
      method: 'POST',
      path: `${phoneNumberId}/messages`,
      token,
      json: payload,
      idempotent: false,
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
      json: { messaging_product: 'whatsapp', status: 'read', message_id: messageId, ...(typing ? { typing_indicator: { type: 'text' } } : {}) },
      idempotent: true,
    });
  }

  /** POST (block) or DELETE (unblock) /{phone_number_id}/block_users (§3); partial failures come back as data. */
  async blockUsers(token: string, phoneNumberId: string, users: string[], block: boolean): Promise<BlockResult> {
    const res = await this.http.call<{
      block_users?: { added_users?: BlockResult['done']; removed_users?: BlockResult['done']; failed_users?: Array<{ input: string; errors?: unknown[] }> };
    }>({
      method: block ? 'POST' : 'DELETE',
      path: `${phoneNumberId}/block_users`,
      token,
      json: { messaging_product: 'whatsapp', block_users: users.map((user) => ({ user })) },
      idempotent: true,
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
    return this.callAction(token, phoneNumberId, { messaging_product: 'whatsapp', call_id: callId, action: 'accept', session: { sdp_type: 'answer', sdp } });
  }

  // ---- Flows (§5)

  async createFlow(token: string, wabaId: string, input: { name: string; categories: string[]; flowJson?: string }): Promise<{ id: string; validationErrors: FlowValidationError[] }> {
    const res = await this.http.call<{ id: string; validation_errors?: FlowValidationError[] }>({
      method: 'POST',
      path: `${wabaId}/flows`,
      token,
      json: { name: input.name, categories: input.categories, ...(input.flowJson !== undefined ? { flow_json: input.flowJson } : {}) },
      idempotent: false,
    });
    return { id: res.id, validationErrors: res.validation_errors ?? [] };
  }

  getFlow(token: string, flowId: string): Promise<ProviderFlow> {
    return this.http.call<ProviderFlow>({ method: 'GET', path: flowId, token, query: { fields: FLOW_FIELDS }, idempotent: true });
  }

  async listFlows(token: string, wabaId: string): Promise<ProviderFlow[]> {
    const res = await this.http.call<{ data?: ProviderFlow[] }>({ method: 'GET', path: `${wabaId}/flows`, token, idempotent: true });
    return res.data ?? [];
  }

  /** Uploads the Flow JSON as multipart/form-data (`asset_type=FLOW_JSON`); the provider keeps it even with errors. */
  async uploadFlowJson(token: string, flowId: string, json: string): Promise<FlowValidationError[]> {
    const form = new FormData();
    form.append('name', 'flow.json');
    form.append('asset_type', 'FLOW_JSON');
    form.append('file', new Blob([json], { type: 'application/json' }), 'flow.json');
    const res = await this.http.call<{ validation_errors?: FlowValidationError[] }>({ method: 'POST', path: `${flowId}/assets`, token, form, idempotent: true });
    return res.validation_errors ?? [];
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
    if (!this.opts.appId || !this.opts.appSecret) throw new AppError('internal', 'provider_app_unconfigured', 'PROVIDER_APP_ID and PROVIDER_APP_SECRET are required');
    const res = await this.http.call<{ access_token?: string }>({
      method: 'GET',
      path: 'oauth/access_token',
      query: { client_id: this.opts.appId, client_secret: this.opts.appSecret, code },
      idempotent: false,
    });
    if (!res.access_token) throw new AppError('provider_rejected', 'provider_error', 'The provider returned no access token');
    return { accessToken: res.access_token };
  }

  async registerPhone(token: string, phoneNumberId: string, pin: string): Promise<void> {
    await this.http.call({ method: 'POST', path: `${phoneNumberId}/register`, token, json: { messaging_product: 'whatsapp', pin }, idempotent: true });
  }

  async subscribeApp(token: string, wabaId: string): Promise<void> {
    await this.http.call({ method: 'POST', path: `${wabaId}/subscribed_apps`, token, idempotent: true });
  }

  async listCatalogs(token: string, wabaId: string): Promise<Array<{ id: string; name?: string }>> {
    const res = await this.http.call<{ data?: Array<{ id: string; name?: string }> }>({ method: 'GET', path: `${wabaId}/product_catalogs`, token, idempotent: true });
    return res.data ?? [];
  }

  close(): Promise<void> {
    return this.http.close();
  }
}
