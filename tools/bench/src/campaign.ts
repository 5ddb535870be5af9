import { SimControl } from '@gateway/testing';
import { quantile } from './report';

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
  /**
   * The tenant's own sends on the first number while its campaign runs at the number's full rate (issue 26: they
   * keep priority, never queued behind the campaign's calls): how many, those not answered 2xx, and their latency.
   */
  singles: {
    sent: number;
    failed: number;
    p50Ms: number;
    p90Ms: number;
    maxMs: number;
    /**
     * Of their time, the wait for a place in the number's window (the messaging service's
     * `campaign_yield_wait_seconds`, read before and after): how many it counted, their mean, and the histogram
     * bucket (its upper bound, ms) nine in ten fell in; absent when its metrics could not be read.
     */
    wait?: { counted: number; meanMs: number; p90BucketMs: number };
  };
}

/** The messaging service's `campaign_yield_wait_seconds` histogram as scraped: count, sum (s), buckets (le s → count). */
interface YieldWaits {
  count: number;
  sum: number;
  buckets: Map<number, number>;
}

async function yieldWaits(metricsUrl: string): Promise<YieldWaits> {
  const text = await (await fetch(metricsUrl)).text();
  const waits: YieldWaits = { count: 0, sum: 0, buckets: new Map() };
  for (const line of text.split('\n')) {
    const m = /^campaign_yield_wait_seconds_(count|sum|bucket)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const value = Number(m[3]);
    if (m[1] === 'count') waits.count = value;
    else if (m[1] === 'sum') waits.sum = value;
    else {
      const le = /le="([^"]+)"/.exec(m[2])?.[1];
      if (le) waits.buckets.set(le === '+Inf' ? Infinity : Number(le), value);
    }
  }
  return waits;
}

/** What the run added to the histogram: its count, mean (ms) and the bucket nine in ten of its waits fell in. */
function waitsBetween(before: YieldWaits, after: YieldWaits): NonNullable<CampaignResult['singles']['wait']> {
  const counted = after.count - before.count;
  const bounds = [...after.buckets.keys()].sort((a, b) => a - b);
  const p90 = bounds.find((le) => after.buckets.get(le)! - (before.buckets.get(le) ?? 0) >= 0.9 * counted) ?? Infinity;
  return { counted, meanMs: counted ? ((after.sum - before.sum) * 1000) / counted : 0, p90BucketMs: p90 * 1000 };
}

/** The tenant's own sends beside the campaigns: one every 100 ms on the first number (4 % of its 250 per second). */
const SINGLE_EVERY_MS = 100;
/**
 * The bench's goal for them: queued behind the campaign, a send would wait at least for the batch being sent (the
 * runner's batches are a quarter of a second of the number's sends, two of them sending at a time); going first, it
 * waits for its own round trip and less than one slot (4 ms at 250/s), on a machine the campaigns keep busy.
 */
export const SINGLE_P90_GOAL_MS = 200;

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
  /** The messaging service's Prometheus endpoint (the tenant's sends' wait for a place). */
  messagingMetricsUrl?: string,
): Promise<CampaignResult> {
  const sim = new SimControl(simUrl);
  const per = Math.floor(CAMPAIGN_RECIPIENTS / CAMPAIGN_NUMBERS);
  const numbers: Array<{ phone: string; client: string; campaign: string; recipients: string[] }> = [];
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
    numbers.push({ phone: phone.phone_number_id, client: client.id, campaign: campaign.id, recipients });
  }
  const cpu0 = cpu?.start();
  const t0 = Date.now();
  for (const n of numbers) await call(`${baseUrl}/api/campaigns/${n.campaign}/start`, { method: 'POST', headers: auth, body: '{}' });
  const waitsBefore = messagingMetricsUrl ? await yieldWaits(messagingMetricsUrl) : undefined;
  const singles = singleSends(baseUrl, auth, numbers[0].client);
  const counts: Array<Record<string, number>> = [];
  try {
    for (;;) {
      counts.length = 0;
      for (const n of numbers)
        counts.push((await call<{ counts: Record<string, number> }>(`${baseUrl}/api/campaigns/${n.campaign}`, { headers: auth })).counts);
      if (counts.every((c) => c.queued === 0)) break;
      if (Date.now() - t0 > 10 * 60_000) throw new Error(`campaigns not done after 10 minutes: ${JSON.stringify(counts)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    singles.stop();
  }
  const single: CampaignResult['singles'] = await singles.done;
  if (waitsBefore && messagingMetricsUrl) single.wait = waitsBetween(waitsBefore, await yieldWaits(messagingMetricsUrl));
  const seconds = (Date.now() - t0) / 1000;
  cpu?.stop(cpu0, per * numbers.length + single.sent);
  const result: CampaignResult = { ratePerNumber: [], maxWindow: 0, refused: 0, duplicates: 0, lost: 0, unknown: 0, seconds, singles: single };
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

/**
 * The tenant's own template sends on one client, one every `SINGLE_EVERY_MS` (each after the one before answered)
 * until stopped: their count, those not answered 2xx and the latency of those that were.
 */
function singleSends(baseUrl: string, auth: Record<string, string>, clientId: string): { stop(): void; done: Promise<CampaignResult['singles']> } {
  let stopped = false;
  const done = (async () => {
    const ms: number[] = [];
    let sent = 0;
    let failed = 0;
    while (!stopped) {
      const started = performance.now();
      // a connection error counts as a failed send (it fails the bench) rather than ending the loop unobserved
      const ok = await fetch(`${baseUrl}/api/messaging/send-template`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          client_id: clientId,
          to: `+1${String(3_000_000_000 + sent)}`,
          template_name: TEMPLATE.name,
          lang: TEMPLATE.language,
          components: [{ type: 'body', parameters: [{ type: 'text', text: 'Ann' }] }],
        }),
      }).then(
        async (res) => (await res.arrayBuffer(), res.ok),
        () => false,
      );
      sent += 1;
      if (ok) ms.push(performance.now() - started);
      else failed += 1;
      const wait = started + SINGLE_EVERY_MS - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
    ms.sort((a, b) => a - b);
    const at = (q: number) => (ms.length ? Math.round(quantile(ms, q) * 10) / 10 : 0);
    return { sent, failed, p50Ms: at(0.5), p90Ms: at(0.9), maxMs: at(1) };
  })();
  return {
    stop: () => {
      stopped = true;
    },
    done,
  };
}
