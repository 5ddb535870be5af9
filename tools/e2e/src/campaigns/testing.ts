import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { tenantDirectory as td } from '@gateway/contracts';
import { createServiceClient } from '@gateway/rpc';
import { SimControl, waitFor } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

export interface SimPhone {
  phone_number_id: string;
  waba_id: string;
  access_token: string;
}

/** A positional utility template and a named marketing one, both APPROVED at the simulator. */
export const NOTICE = {
  name: 'shipping_notice',
  language: 'en_US',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Hi {{1}}, order {{2}} ships today', example: { body_text: [['Ann', 'A-1']] } }],
};
export const PROMO = {
  name: 'spring_promo',
  language: 'en_US',
  category: 'MARKETING',
  parameter_format: 'NAMED',
  components: [
    {
      type: 'BODY',
      text: 'Hi {{first_name}}, spring sale today',
      example: { body_text_named_params: [{ param_name: 'first_name', example: 'Ann' }] },
    },
  ],
};

/**
 * A client of the tenant on a fresh simulator number, with both templates in its local copy. `throughput`: the
 * number's messages per second, at the simulator and as the provider reported it to the directory (before the
 * messaging service first looks the client up, so no replica holds the default of 80 in its cache).
 */
export async function clientWithTemplates(
  stack: Stack,
  api: ApiClient,
  number?: { tenantId: string; throughput: number },
): Promise<{ clientId: string; phone: SimPhone }> {
  const sim = new SimControl(stack.sim!.url);
  const phone = (await sim.phoneNumber()) as SimPhone;
  const res = await api.post('/api/clients/', {
    display_name: 'Shop',
    business_account_id: phone.waba_id,
    phone_number_id: phone.phone_number_id,
    access_token: phone.access_token,
  });
  if (res.status !== 200) throw new Error(`client: ${res.status} ${res.text}`);
  const clientId = (res.json as { id: string }).id;
  if (number) {
    await sim.setThroughput(phone.phone_number_id, number.throughput);
    const dir = createServiceClient(td.TenantDirectoryService, stack.env.TENANT_DIRECTORY_ADDR!);
    try {
      await dir.applyProviderAccountUpdate({ tenantId: number.tenantId, clientId, throughput: number.throughput });
    } finally {
      dir.close();
    }
  }
  for (const t of [NOTICE, PROMO]) await sim.send('POST', '/_sim/templates', { waba_id: phone.waba_id, ...t });
  const synced = await api.post('/api/templates/sync', { client_id: clientId });
  if (synced.status !== 200) throw new Error(`sync: ${synced.status} ${synced.text}`);
  return { clientId, phone };
}

/** `n` distinct recipients from `base` on, with their positional values. */
export const recipients = (n: number, base = 1000, prefix = '+1650') =>
  Array.from({ length: n }, (_, i) => ({ to: `${prefix}${String(base + i).padStart(7, '0')}`, parameters: [`Ann ${i}`, `A-${i}`] }));

/** The most arrivals in any one-second window (sliding, inclusive of both ends less a millisecond). */
export function maxPerSecond(times: number[]): number {
  const t = [...times].sort((a, b) => a - b);
  let max = 0;
  let start = 0;
  for (let end = 0; end < t.length; end++) {
    while (t[end] - t[start] >= 1000) start++;
    max = Math.max(max, end - start + 1);
  }
  return max;
}

export async function campaign(api: ApiClient, id: string): Promise<any> {
  const res = await api.get(`/api/campaigns/${id}`);
  if (res.status !== 200) throw new Error(`campaign: ${res.status} ${res.text}`);
  return res.json;
}

/** Waits until the campaign satisfies `ok`; answers it. */
export async function campaignUntil(api: ApiClient, id: string, ok: (c: any) => boolean, what: string, timeoutMs = 90_000): Promise<any> {
  return waitFor(
    async () => {
      const c = await campaign(api, id);
      return ok(c) ? c : undefined;
    },
    { what, timeoutMs, intervalMs: 200 },
  );
}

/** Every recipient of the campaign, through the paged list. */
export async function allRecipients(api: ApiClient, id: string, status?: string): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const q = new URLSearchParams({ limit: '100', ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
    const res = await api.get(`/api/campaigns/${id}/recipients?${q}`);
    if (res.status !== 200) throw new Error(`recipients: ${res.status} ${res.text}`);
    const page = res.json as { data: any[]; next_cursor: string | null };
    out.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

export const sumOfCounts = (c: { counts: Record<string, number> }) =>
  Object.entries(c.counts)
    .filter(([k]) => k !== 'total')
    .reduce((s, [, n]) => s + n, 0);

/** Creates a campaign (`POST /api/campaigns`) and starts it: the running campaign. */
export async function createAndStart(api: ApiClient, body: Record<string, unknown>): Promise<any> {
  const created = await api.post('/api/campaigns', body);
  if (created.status !== 201) throw new Error(`create: ${created.status} ${created.text}`);
  const started = await api.post(`/api/campaigns/${(created.json as { id: string }).id}/start`, {});
  if (started.status !== 200) throw new Error(`start: ${started.status} ${started.text}`);
  return started.json;
}

/** The client as the API answers it. */
export async function clientRecord(api: ApiClient, clientId: string): Promise<any> {
  const res = await api.get(`/api/clients/${clientId}`);
  if (res.status !== 200) throw new Error(`client: ${res.status} ${res.text}`);
  return res.json;
}

/** What a campaign test works with (`campaignWorld`). */
export interface CampaignWorld {
  stack: Stack;
  sim: SimControl;
  api: ApiClient;
  tenantId: string;
  clientId: string;
  phone: SimPhone;
  /** The simulator's arrivals on the client's number addressed to one of `list`, in order. */
  arrivalsTo(list: Array<{ to: string }>): Promise<Array<{ at: number; to: string; accepted: boolean }>>;
}

/**
 * A stack of the directory, messaging and the edge (`processes`: those in processes of their own), one tenant with
 * a client on a fresh number holding both templates (`throughput`: the number's rate, reported to the directory),
 * and the simulator answering every send with its statuses.
 */
export async function campaignWorld(opts: { processes?: string[]; throughput?: number } = {}): Promise<CampaignWorld> {
  const stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], ...(opts.processes ? { processes: opts.processes } : {}) });
  try {
    const sim = new SimControl(stack.sim!.url);
    const t = await stack.createTenant({ name: 'Sender' });
    const number = opts.throughput ? { tenantId: t.tenant.id, throughput: opts.throughput } : undefined;
    const { clientId, phone } = await clientWithTemplates(stack, t.api, number);
    await sim.autoStatuses(true);
    const arrivalsTo = async (list: Array<{ to: string }>) => {
      const tos = new Set(list.map((r) => r.to));
      return (await sim.sends(phone.phone_number_id)).filter((a) => tos.has(a.to));
    };
    return { stack, sim, api: t.api, tenantId: t.tenant.id, clientId, phone, arrivalsTo };
  } catch (e) {
    await stack.stop();
    throw e;
  }
}

/** The tenant's own send of the notice template to `to` (not a campaign's). */
export const sendNotice = (api: ApiClient, clientId: string, to: string) =>
  api.post('/api/messaging/send-template', {
    client_id: clientId,
    to,
    template_name: 'shipping_notice',
    lang: 'en_US',
    components: [
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'Ann' },
          { type: 'text', text: 'A-1' },
        ],
      },
    ],
  });
