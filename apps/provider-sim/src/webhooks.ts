import { createHmac } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@gateway/logger';
import type { PhoneNumber, SentMessage, SimState } from './state';
import { contactOf } from './users';

type Json = Record<string, unknown>;

/**
 * Builds provider webhook bodies (§7) and POSTs them signed with the app secret (§7.2). `stop` ends what is still
 * going: the statuses a send schedules, the retries of a delivery and a fault's delay (every wait through `after`)
 * no longer wait or post (the gateway is usually gone by then), so a stopped simulator leaves no timer or request
 * behind.
 */
export class WebhookSender {
  private readonly stopping = new AbortController();

  constructor(
    private readonly state: SimState,
    private readonly appSecret: string,
    private readonly logger?: Logger,
  ) {
    // every status a send scheduled and every delivery in flight listens for the stop at once: not a leak
    setMaxListeners(0, this.stopping.signal);
  }

  envelope(wabaId: string, field: string, value: Json, time?: number): Json {
    return { object: 'whatsapp_business_account', entry: [{ id: wabaId, ...(time ? { time } : {}), changes: [{ field, value }] }] };
  }

  messagesValue(phone: PhoneNumber, extra: Json): Json {
    return { messaging_product: 'whatsapp', metadata: { display_phone_number: phone.display, phone_number_id: phone.id }, ...extra };
  }

  /**
   * A `messages` change with one status (reference §7.6). A `failed` one carries its errors on the status and, as
   * the provider's failure webhooks do, in the value's own `errors` too (`errorLevel` picks one side only).
   */
  statusBody(
    phone: PhoneNumber,
    messageId: string,
    recipient: string,
    status: string,
    errors?: unknown[],
    errorLevel: 'status' | 'value' | 'both' = 'both',
    sent?: Pick<SentMessage, 'userId' | 'toBsuid' | 'pricingCategory'>,
  ): Json {
    const ts = String(Math.floor(this.state.now() / 1000));
    // provider-2026.md §2.3: `recipient_user_id` always (but not on a failure of a send to a phone), the phone
    // only when it may be shared; a status other than failed names the user in `contacts` too
    const user = sent?.userId ? this.state.users.ofId(this.state.wabas.get(phone.wabaId)?.businessId ?? '', sent.userId) : undefined;
    const phoneShown = !sent?.toBsuid || !!user?.phone;
    const s: Json = { id: messageId, status, timestamp: ts, ...(phoneShown ? { recipient_id: (user?.phone ?? recipient).replace(/^\+/, '') } : {}) };
    if (user && !(status === 'failed' && !sent?.toBsuid)) {
      s.recipient_user_id = user.userId;
      if (user.parentUserId) s.recipient_parent_user_id = user.parentUserId;
    }
    const contacts = user && status !== 'failed' ? { contacts: [contactOf(user, 'Test User')] } : {};
    if (status !== 'failed') {
      // provider-2026.md §4.1: `service` (a free-form reply inside the customer-service window) is free, the template
      // categories (utility, marketing, marketing_lite, authentication) billable
      const category = sent?.pricingCategory ?? 'utility';
      const free = category === 'service';
      s.pricing = { billable: !free, pricing_model: 'PMP', category, type: free ? 'free_customer_service' : 'regular' };
      if (status === 'sent')
        s.conversation = {
          id: `conv${messageId.slice(-12)}`,
          expiration_timestamp: String(Number(ts) + 86400),
          origin: { type: category === 'marketing_lite' ? 'marketing' : category },
        };
    }
    if (errors && errorLevel !== 'value') s.errors = errors;
    const valueErrors = errors && errorLevel !== 'status' ? { errors } : {};
    return this.envelope(phone.wabaId, 'messages', this.messagesValue(phone, { ...contacts, statuses: [s], ...valueErrors }));
  }

  /** Sends a body (serialized exactly once; the signature covers those bytes). Retries briefly, like the provider. */
  async send(body: Json | string): Promise<{ status: number | null; body: string }> {
    const raw = typeof body === 'string' ? body : JSON.stringify(body);
    const url = this.state.webhookUrl;
    if (!url) return { status: null, body: raw };
    const signature = `sha256=${createHmac('sha256', this.appSecret).update(raw).digest('hex')}`;
    let status: number | null = null;
    for (let attempt = 0; attempt < 4 && !this.stopping.signal.aborted; attempt++) {
      if (attempt > 0 && !(await this.after(100 * 2 ** (attempt - 1)))) break;
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
          body: raw,
          signal: AbortSignal.any([AbortSignal.timeout(5000), this.stopping.signal]),
        });
        status = res.status;
        await res.arrayBuffer();
        if (res.ok) break;
      } catch (e) {
        this.logger?.debug({ err: e }, 'webhook delivery failed');
      }
    }
    return { status, body: raw };
  }

  /** Waits `ms`: true then, false at once when the simulator stops (the caller then goes no further). */
  async after(ms: number): Promise<boolean> {
    try {
      await sleep(ms, undefined, { signal: this.stopping.signal });
      return true;
    } catch {
      return false;
    }
  }

  /** Ends every wait and delivery in progress; later sends post nothing. */
  stop(): void {
    this.stopping.abort();
  }
}
