/**
 * The fault run's campaign (issue 26): one campaign of the chaos client runs through the SIGKILLs. At the end every
 * recipient reached the simulator exactly once and is `sent` (or delivered, read), or is `unknown` (reached it
 * once or never); none is still waiting, none reached it twice, none is lost.
 */

/* eslint-disable @typescript-eslint/no-explicit-any -- the API's JSON */

const TEMPLATE = {
  name: 'chaos_notice',
  language: 'en_US',
  category: 'UTILITY',
  components: [{ type: 'BODY', text: 'Hi {{1}}, your order ships today', example: { body_text: [['Ann']] } }],
};

export interface CampaignTarget {
  base: string;
  apiKey: string;
  clientId: string;
  wabaId: string;
  simUrl: string;
}

export interface CampaignOutcome {
  recipients: number;
  ratePerSecond: number;
  /** Recipient statuses at the end. */
  byStatus: Record<string, number>;
  /** Reached the simulator exactly once and recorded as sent (or delivered, read). */
  sentOnce: number;
  unknown: number;
  /** Waiting for the number's daily limit (not sent, not lost). */
  deferred: number;
  /** Reached the simulator more than once. */
  twice: number;
  /** Neither reached it nor `unknown`, or `sent` without reaching it, or still waiting. */
  lost: number;
  /** From the start until no recipient waited. */
  seconds: number;
  /** Examples of what went wrong. */
  problems: string[];
}

const json = async <T>(res: Response): Promise<T> => {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status} ${text}`);
  return JSON.parse(text) as T;
};

/** A chaos campaign: the template at the simulator and in the client's copy, the campaign with its recipients (not started). */
export class ChaosCampaign {
  private id = '';
  private startedAt = 0;
  readonly recipients: string[];

  constructor(
    private readonly t: CampaignTarget,
    count: number,
    readonly ratePerSecond: number,
    runId: string,
  ) {
    // numbers of their own: the load's sends and webhooks use +15551230000
    const prefix = `1666${String(parseInt(runId.slice(0, 6), 16) % 1000).padStart(3, '0')}`;
    this.recipients = Array.from({ length: count }, (_, i) => `+${prefix}${String(i).padStart(6, '0')}`);
  }

  private headers() {
    return { authorization: `Bearer ${this.t.apiKey}`, 'content-type': 'application/json' };
  }

  async create(): Promise<void> {
    if (!this.recipients.length) return;
    await json(
      await fetch(`${this.t.simUrl}/_sim/templates`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ waba_id: this.t.wabaId, ...TEMPLATE }),
      }),
    );
    await json(
      await fetch(`${this.t.base}/api/templates/sync`, { method: 'POST', headers: this.headers(), body: JSON.stringify({ client_id: this.t.clientId }) }),
    );
    const created = await json<{ id: string }>(
      await fetch(`${this.t.base}/api/campaigns`, {
        method: 'POST',
        headers: this.headers(),
        body: JSON.stringify({
          client_id: this.t.clientId,
          name: 'Chaos campaign',
          template_name: TEMPLATE.name,
          lang: TEMPLATE.language,
          rate_per_second: this.ratePerSecond,
          recipients: this.recipients.map((to, i) => ({ to, parameters: [`C${i}`] })),
        }),
      }),
    );
    this.id = created.id;
  }

  async start(): Promise<void> {
    if (!this.id) return;
    this.startedAt = Date.now();
    await json(await fetch(`${this.t.base}/api/campaigns/${this.id}/start`, { method: 'POST', headers: this.headers(), body: '{}' }));
  }

  private async counts(base: string): Promise<Record<string, number>> {
    return (await json<{ counts: Record<string, number> }>(await fetch(`${base}/api/campaigns/${this.id}`, { headers: this.headers() }))).counts;
  }

  /**
   * Waits until no recipient is queued or being sent (a killed replica's `sending` ones become `unknown` when their lease runs out),
   * at most `timeoutMs`; answers the seconds from the start.
   */
  async settle(base: string, timeoutMs: number): Promise<number> {
    if (!this.id) return 0;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const c = await this.counts(base).catch(() => undefined);
      if (c && c.queued === 0) return (Date.now() - this.startedAt) / 1000;
      if (Date.now() > deadline) return (Date.now() - this.startedAt) / 1000;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  private async allRecipients(base: string): Promise<Array<{ to: string; status: string }>> {
    const out: Array<{ to: string; status: string }> = [];
    let cursor: string | null = null;
    do {
      const q = new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) });
      const page: { data: any[]; next_cursor: string | null } = await json(
        await fetch(`${base}/api/campaigns/${this.id}/recipients?${q}`, { headers: this.headers() }),
      );
      out.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    return out;
  }

  /** Each recipient's status against the simulator's received log (the template sends it got, by recipient). */
  async outcome(base: string, seconds: number, simRequests: Array<{ method: string; path: string; body: unknown }>): Promise<CampaignOutcome> {
    const out: CampaignOutcome = {
      recipients: this.recipients.length,
      ratePerSecond: this.ratePerSecond,
      byStatus: {},
      sentOnce: 0,
      unknown: 0,
      deferred: 0,
      twice: 0,
      lost: 0,
      seconds,
      problems: [],
    };
    if (!this.id) return out;
    const arrivals = new Map<string, number>();
    for (const req of simRequests) {
      const body = req.body as { type?: string; to?: string; template?: { name?: string } } | undefined;
      if (req.method !== 'POST' || !req.path.endsWith('/messages') || body?.type !== 'template' || body.template?.name !== TEMPLATE.name) continue;
      const to = String(body.to ?? '').replace(/^\+/, '');
      arrivals.set(to, (arrivals.get(to) ?? 0) + 1);
    }
    const rows = await this.allRecipients(base);
    const problem = (p: string) => out.problems.length < 5 && out.problems.push(p);
    for (const r of rows) {
      out.byStatus[r.status] = (out.byStatus[r.status] ?? 0) + 1;
      const n = arrivals.get(r.to.replace(/^\+/, '')) ?? 0;
      if (n > 1) {
        out.twice += 1;
        problem(`${r.to} reached the provider ${n} times`);
      } else if (r.status === 'unknown') out.unknown += 1;
      else if (r.status === 'deferred' && n === 0) out.deferred += 1;
      else if (n === 1 && ['sent', 'delivered', 'read'].includes(r.status)) out.sentOnce += 1;
      else {
        out.lost += 1;
        problem(`${r.to} is ${r.status} and reached the provider ${n} times`);
      }
    }
    if (rows.length !== this.recipients.length) {
      out.lost += Math.max(0, this.recipients.length - rows.length);
      problem(`${rows.length} recipients listed of ${this.recipients.length}`);
    }
    return out;
  }
}
