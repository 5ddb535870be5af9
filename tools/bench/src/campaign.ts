import { SimControl } from '@gateway/testing';

/** The campaign row (issue 26): 20,000 recipients over 4 numbers, each number limited to 250 per second by the simulator. */
export const CAMPAIGN_NUMBERS = 4;
export const CAMPAIGN_RECIPIENTS = Number(process.env.BENCH_CAMPAIGN_RECIPIENTS ?? 20_000);
export const CAMPAIGN_LIMIT = 250;

export interface CampaignResult {
  /** Per number: accepted sends per second between its first and last arrival. */
  ratePerNumber: number[];
  /** The most arrivals (refused ones included) of one number in any one-second window. */
  maxWindow: number;
  refused: number;
  duplicates: number;
  lost: number;
  unknown: number;
  seconds: number;
}

const TEMPLATE = {
  name: 'bench_notice',
  language: 'en_US',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Hi {{1}}, your order ships today', example: { body_text: [['Ann']] } }],
};

function maxPerSecond(times: number[]): number {
  const t = [...times].sort((a, b) => a - b);
  let max = 0;
  let start = 0;
  for (let end = 0; end < t.length; end++) {
    while (t[end] - t[start] >= 1000) start++;
    max = Math.max(max, end - start + 1);
  }
  return max;
}

async function call<T>(url: string, init: RequestInit): Promise<T> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/**
 * One campaign per number, all started at once; done when no recipient is queued. Counts, from the simulator's
 * log of every send attempt: the rate per number against its limit, the densest second, recipients accepted twice
 * (duplicates) and recipients neither accepted nor marked unknown (lost).
 */
export async function campaignRun(
  baseUrl: string,
  simUrl: string,
  auth: Record<string, string>,
  log: (m: string) => void,
  cpu?: { start(): unknown; stop(before: unknown, ops: number): void },
  /**
   * Tells the gateway the number's throughput as the provider reports it to the directory (else it paces every
   * number at the provider's default, 80 per second: 31 % of the simulator's 250, whatever the CPU).
   */
  reportThroughput?: (clientId: string, perSecond: number) => Promise<void>,
): Promise<CampaignResult> {
  const sim = new SimControl(simUrl);
  const per = Math.floor(CAMPAIGN_RECIPIENTS / CAMPAIGN_NUMBERS);
  const numbers: Array<{ phone: string; campaign: string; recipients: string[] }> = [];
  for (let n = 0; n < CAMPAIGN_NUMBERS; n++) {
    const phone = await sim.phoneNumber();
    await sim.setThroughput(phone.phone_number_id, CAMPAIGN_LIMIT);
    await sim.send('POST', '/_sim/templates', { waba_id: phone.waba_id, ...TEMPLATE });
    const client = await call<{ id: string }>(`${baseUrl}/api/clients/`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        display_name: `Campaign ${n}`,
        business_account_id: phone.waba_id,
        phone_number_id: phone.phone_number_id,
        access_token: phone.access_token,
      }),
    });
    // before the messaging service first looks the client up (the template sync): no cached default of 80
    await reportThroughput?.(client.id, CAMPAIGN_LIMIT);
    await call(`${baseUrl}/api/templates/sync`, { method: 'POST', headers: auth, body: JSON.stringify({ client_id: client.id }) });
    const recipients = Array.from({ length: per }, (_, i) => `+1${String(2_000_000_000 + n * 1_000_000 + i)}`);
    const campaign = await call<{ id: string }>(`${baseUrl}/api/campaigns`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        client_id: client.id,
        name: `Bench ${n}`,
        template_name: TEMPLATE.name,
        lang: TEMPLATE.language,
        recipients: recipients.map((to, i) => ({ to, parameters: [`R${i}`] })),
      }),
    });
    numbers.push({ phone: phone.phone_number_id, campaign: campaign.id, recipients });
  }
  const cpu0 = cpu?.start();
  const t0 = Date.now();
  for (const n of numbers) await call(`${baseUrl}/api/campaigns/${n.campaign}/start`, { method: 'POST', headers: auth, body: '{}' });
  const counts: Array<Record<string, number>> = [];
  for (;;) {
    counts.length = 0;
    for (const n of numbers) counts.push((await call<{ counts: Record<string, number> }>(`${baseUrl}/api/campaigns/${n.campaign}`, { headers: auth })).counts);
    if (counts.every((c) => c.queued === 0)) break;
    if (Date.now() - t0 > 10 * 60_000) throw new Error(`campaigns not done after 10 minutes: ${JSON.stringify(counts)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const seconds = (Date.now() - t0) / 1000;
  cpu?.stop(cpu0, per * numbers.length);
  const result: CampaignResult = { ratePerNumber: [], maxWindow: 0, refused: 0, duplicates: 0, lost: 0, unknown: 0, seconds };
  for (const c of counts) result.unknown += c.unknown;
  for (const n of numbers) {
    const arrivals = await sim.sends(n.phone);
    const accepted = arrivals.filter((a) => a.accepted);
    result.refused += arrivals.length - accepted.length;
    result.maxWindow = Math.max(result.maxWindow, maxPerSecond(arrivals.map((a) => a.at)));
    const times = new Map<string, number>();
    for (const a of accepted) times.set(a.to, (times.get(a.to) ?? 0) + 1);
    for (const k of times.values()) result.duplicates += k - 1;
    const span = (Math.max(...accepted.map((a) => a.at)) - Math.min(...accepted.map((a) => a.at))) / 1000;
    result.ratePerNumber.push(span > 0 ? (accepted.length - 1) / span : 0);
    result.lost += n.recipients.filter((to) => !times.has(to)).length;
  }
  // a recipient marked unknown may not have arrived: not lost
  result.lost = Math.max(0, result.lost - result.unknown);
  log(`campaign: ${JSON.stringify(result)}`);
  return result;
}
