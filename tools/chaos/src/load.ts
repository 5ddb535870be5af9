import { createHmac } from 'node:crypto';
import { Agent, request } from 'undici';

export interface LoadTarget {
  /** Base URLs of the edges; requests alternate between them as a load balancer would. */
  edges: string[];
  apiKey: string;
  clientId: string;
  phoneNumberId: string;
  wabaId: string;
  appSecret: string;
  /** Distinguishes this run's ids from any other's. */
  runId: string;
}

export interface WebhookRecord {
  wamid: string;
  attempts: number;
  acceptedAt?: number;
}

export interface SendRecord {
  marker: string;
  status: number | 'no_answer';
  at: number;
}

/**
 * A steady, bounded load through the edges: signed inbound provider webhooks (one text message each) at
 * `webhooksPerSec`, and send-buttons requests at `sendsPerSec`. A webhook that is not accepted is sent again,
 * byte for byte, to the other edge after a pause, as the provider does until it gets a 2xx. A send is never
 * repeated: its outcome is what the caller saw.
 */
export class Load {
  readonly webhooks = new Map<string, WebhookRecord>();
  readonly sends: SendRecord[] = [];
  /** Answers with status 503: refusals while a dependency fails over (a refused webhook is sent again). */
  readonly refused503 = { webhooks: 0, sends: 0 };
  /** Requests that got no HTTP answer (connection refused or reset by a killed edge). */
  noAnswer = 0;
  /** Requests the generator did not make because `maxInFlight` were waiting for answers (the gateway fell behind). */
  readonly skipped = { webhooks: 0, sends: 0 };
  private timers: NodeJS.Timeout[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private n = 0;
  private stopped = false;
  private retryUntil = Infinity;
  /** Keep-alive connections to the edges, as a provider's or a client's HTTP stack keeps them (requests beyond them queue here). */
  private readonly agent = new Agent({ keepAliveTimeout: 30_000, connections: 512 });

  constructor(
    readonly t: LoadTarget,
    private readonly maxInFlight = 256,
  ) {}

  start(webhooksPerSec: number, sendsPerSec: number): void {
    // by the clock, not one request per timer tick: a busy generator fires its timers late and would fall short of
    // the rate; each tick makes what is due since the start
    const t0 = Date.now();
    const made = { webhooks: 0, sends: 0 };
    const tick = () => {
      const elapsed = (Date.now() - t0) / 1000;
      for (; made.webhooks < Math.floor(elapsed * webhooksPerSec); made.webhooks++) this.spawn('webhooks', () => this.webhook());
      for (; made.sends < Math.floor(elapsed * sendsPerSec); made.sends++) this.spawn('sends', () => this.send());
    };
    this.timers.push(setInterval(tick, Math.max(1, Math.min(20, 1000 / (webhooksPerSec + sendsPerSec)))));
  }

  /** Stops making new requests; webhooks not yet accepted keep being re-sent for up to `retryMs`. */
  async stop(retryMs: number): Promise<void> {
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    this.retryUntil = Date.now() + retryMs;
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
    await this.agent.close();
  }

  accepted(): WebhookRecord[] {
    return [...this.webhooks.values()].filter((w) => w.acceptedAt !== undefined);
  }

  private spawn(kind: 'webhooks' | 'sends', fn: () => Promise<void>): void {
    // bounded: when the gateway falls behind, the generator waits instead of piling up requests
    if (this.stopped) return;
    if (this.inFlight.size >= this.maxInFlight) {
      this.skipped[kind] += 1;
      return;
    }
    const p = fn().finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  private edge(i: number): string {
    return this.t.edges[i % this.t.edges.length];
  }

  private async webhook(): Promise<void> {
    const n = this.n++;
    const wamid = `wamid.chaos.${this.t.runId}.${n}`;
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: this.t.wabaId,
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550001111', phone_number_id: this.t.phoneNumberId },
                contacts: [{ profile: { name: 'Chaos' }, wa_id: '15551230000' }],
                messages: [{ from: '15551230000', id: wamid, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: `chaos ${n}` } }],
              },
            },
          ],
        },
      ],
    });
    const signature = `sha256=${createHmac('sha256', this.t.appSecret).update(body).digest('hex')}`;
    const rec: WebhookRecord = { wamid, attempts: 0 };
    this.webhooks.set(wamid, rec);
    for (;;) {
      const status = await this.post('webhooks', this.edge(n + rec.attempts), '/webhooks/provider', body, { 'x-hub-signature-256': signature }, 15_000);
      rec.attempts += 1;
      if (typeof status === 'number' && status >= 200 && status < 300) {
        rec.acceptedAt = Date.now();
        return;
      }
      if (Date.now() > this.retryUntil) return;
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  private async send(): Promise<void> {
    const n = this.n++;
    const marker = `chaos-send-${this.t.runId}-${n}`;
    const body = JSON.stringify({
      client_id: this.t.clientId,
      to: '+15551230000',
      body: { type: 'text', text: marker },
      buttons: [
        { id: 'yes', title: 'Yes' },
        { id: 'no', title: 'No' },
      ],
    });
    const status = await this.post(
      'sends',
      this.edge(n),
      '/api/messaging/send-buttons',
      body,
      { authorization: `Bearer ${this.t.apiKey}`, 'idempotency-key': marker },
      30_000,
    );
    this.sends.push({ marker, status, at: Date.now() });
  }

  private async post(
    kind: 'webhooks' | 'sends',
    base: string,
    path: string,
    body: string,
    headers: Record<string, string>,
    timeoutMs: number,
  ): Promise<number | 'no_answer'> {
    try {
      // undici's request rather than fetch: a fraction of fetch's CPU per request, which this process spends on the load
      const res = await request(`${base}${path}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json', ...headers },
        dispatcher: this.agent,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      await res.body.dump();
      if (res.statusCode === 503) this.refused503[kind] += 1;
      return res.statusCode;
    } catch {
      this.noAnswer += 1;
      return 'no_answer';
    }
  }
}
