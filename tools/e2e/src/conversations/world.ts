import type { Stack } from '@gateway/test-stack';
import { SimControl } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

export interface TenantClient {
  api: ReturnType<Stack['api']>;
  apiKey: string;
  clientId: string;
  phone: { phone_number_id: string; waba_id: string; access_token: string };
}

/** A tenant with one active client on a fresh simulator number. */
export async function tenantWithClient(stack: Stack, name: string, tenant: Record<string, unknown> = {}): Promise<TenantClient> {
  const sim = new SimControl(stack.sim!.url);
  const { api, apiKey } = await stack.createTenant({ name, email: `${name.toLowerCase()}@example.test`, ...tenant });
  const phone = await sim.phoneNumber();
  const c = await api.post<any>('/api/clients/', {
    display_name: name,
    business_account_id: phone.waba_id,
    phone_number_id: phone.phone_number_id,
    access_token: phone.access_token,
  });
  if (c.status !== 200 && c.status !== 201) throw new Error(`client: ${c.status} ${c.text}`);
  return { api, apiKey, clientId: c.json.id, phone };
}

/** A provider `messages` webhook body for the number, as the provider would send it (provider-2026.md §2). */
export function messagesBody(phone: TenantClient['phone'], value: Record<string, unknown>): string {
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: phone.waba_id,
        changes: [
          {
            field: 'messages',
            value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550001111', phone_number_id: phone.phone_number_id }, ...value },
          },
        ],
      },
    ],
  });
}

/** Posts a raw provider body through the simulator (signed, to the edge's webhook). */
export async function postRaw(stack: Stack, body: string): Promise<void> {
  const res = await new SimControl(stack.sim!.url).send<{ status: number }>('POST', '/_sim/inbound/raw', { body });
  if (res.status !== 200) throw new Error(`webhook answered ${res.status}`);
}

export interface SseEvent {
  id?: string;
  event?: string;
  data: any;
  at: number;
}

/** An open Server-Sent Events stream: its status and the events read so far. */
export async function openStream(baseUrl: string, apiKey: string, clientId: string, lastEventId?: string) {
  const ac = new AbortController();
  const res = await fetch(`${baseUrl}/api/stream?client_id=${clientId}`, {
    headers: { authorization: `Bearer ${apiKey}`, ...(lastEventId ? { 'last-event-id': lastEventId } : {}) },
    signal: ac.signal,
  });
  const events: SseEvent[] = [];
  if (res.status === 200 && res.body) {
    void (async () => {
      const reader = res.body!.getReader();
      const dec = new TextDecoder();
      let buf = '';
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const e: Partial<SseEvent> = {};
            let data = '';
            for (const line of block.split('\n')) {
              if (line.startsWith('id: ')) e.id = line.slice(4);
              else if (line.startsWith('event: ')) e.event = line.slice(7);
              else if (line.startsWith('data: ')) data += line.slice(6);
            }
            if (data) events.push({ ...e, data: JSON.parse(data), at: Date.now() });
          }
        }
      } catch {
        // aborted
      }
    })();
  }
  return { status: res.status, headers: res.headers, events, close: () => ac.abort(), text: res.status === 200 ? '' : await res.text() };
}
