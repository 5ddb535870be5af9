import { AppError } from '@gateway/errors';
import type { ProviderHttp } from './http';

type Json = Record<string, unknown>;

/** The actions on a user-initiated call (provider-2026.md §7.2). */
export type CallAction = 'pre_accept' | 'accept' | 'reject' | 'terminate';

/** Who a business-initiated call goes to: a phone number (`to`) or a business-scoped user id (`recipient`). */
export type CallTarget = { to: string; recipient?: undefined } | { recipient: string; to?: undefined };

/**
 * The body of an action on a call (§7.2): `pre_accept` and `accept` carry the SDP answer, `accept` and `terminate`
 * may carry `biz_opaque_callback_data` (≤ 512, echoed by the terminate webhook).
 */
export function callActionBody(callId: string, action: CallAction, opts: { sdp?: string; bizOpaqueCallbackData?: string } = {}): Json {
  return {
    messaging_product: 'whatsapp',
    call_id: callId,
    action,
    ...(opts.sdp !== undefined && (action === 'pre_accept' || action === 'accept') ? { session: { sdp_type: 'answer', sdp: opts.sdp } } : {}),
    ...(opts.bizOpaqueCallbackData !== undefined && action === 'accept' ? { biz_opaque_callback_data: opts.bizOpaqueCallbackData } : {}),
  };
}

/** A business-initiated call (§7.3): the agent's SDP offer to a user. */
export function connectCallBody(target: CallTarget, sdp: string, bizOpaqueCallbackData?: string): Json {
  return {
    messaging_product: 'whatsapp',
    ...(target.to !== undefined ? { to: target.to } : { recipient: target.recipient }),
    action: 'connect',
    session: { sdp_type: 'offer', sdp },
    ...(bizOpaqueCallbackData !== undefined ? { biz_opaque_callback_data: bizOpaqueCallbackData } : {}),
  };
}

/** The `calling` object of a number's settings (§7.1), as the provider has it; passed on unchanged. */
export type ProviderCallingSettings = Json;

/** A user's call permission as the provider answers it (§7.4). */
export interface ProviderCallPermission {
  permission?: { status?: string; expiration_time?: number };
  actions?: Array<{ action_name?: string; can_perform_action?: boolean; limits?: unknown[] }>;
}

/** The Calling API of a business number (provider-2026.md §7); one request body built here per call. */
export class CallingCalls {
  constructor(private readonly http: ProviderHttp) {}

  /** POST /{phone_number_id}/calls with an action on a call; never repeated once sent (the call moves on). */
  async action(token: string, phoneNumberId: string, callId: string, action: CallAction, opts: { sdp?: string; bizOpaqueCallbackData?: string } = {}) {
    await this.http.call({ method: 'POST', path: `${phoneNumberId}/calls`, token, json: callActionBody(callId, action, opts), idempotent: false });
  }

  /** POST /{phone_number_id}/calls `connect` → the provider's call id; never repeated (it would ring twice). */
  async connect(token: string, phoneNumberId: string, target: CallTarget, sdp: string, bizOpaqueCallbackData?: string): Promise<string> {
    const res = await this.http.call<{ calls?: Array<{ id?: string }> }>({
      method: 'POST',
      path: `${phoneNumberId}/calls`,
      token,
      json: connectCallBody(target, sdp, bizOpaqueCallbackData),
      idempotent: false,
    });
    const id = res.calls?.[0]?.id;
    if (!id) throw new AppError('unavailable', 'provider_bad_response', 'The provider connected the call but returned no call id');
    return id;
  }

  /** GET /{phone_number_id}/call_permissions?user_wa_id= (or recipient=). */
  permissions(token: string, phoneNumberId: string, target: CallTarget): Promise<ProviderCallPermission> {
    const query: Record<string, string> = target.to !== undefined ? { user_wa_id: target.to.replace(/^\+/, '') } : { recipient: target.recipient };
    return this.http.call<ProviderCallPermission>({ method: 'GET', path: `${phoneNumberId}/call_permissions`, token, query, idempotent: true });
  }

  /** GET /{phone_number_id}/settings → its `calling` object (empty when the provider answers none). */
  async settings(token: string, phoneNumberId: string): Promise<ProviderCallingSettings> {
    const res = await this.http.call<{ calling?: Json }>({ method: 'GET', path: `${phoneNumberId}/settings`, token, idempotent: true });
    return res.calling && typeof res.calling === 'object' ? res.calling : {};
  }

  /** POST /{phone_number_id}/settings `{calling}` → `{success: true}`; the same settings again change nothing (safe to repeat). */
  async updateSettings(token: string, phoneNumberId: string, calling: ProviderCallingSettings): Promise<void> {
    const res = await this.http.call<{ success?: boolean }>({ method: 'POST', path: `${phoneNumberId}/settings`, token, json: { calling }, idempotent: true });
    if (res.success !== true) throw new AppError('unavailable', 'provider_bad_response', 'The provider did not confirm the calling settings');
  }
}
