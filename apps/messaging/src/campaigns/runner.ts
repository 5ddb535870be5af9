import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { messaging as m } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import type { Logger } from '@gateway/logger';
import type { Metrics } from '@gateway/runtime';
import type { Messaging } from '../messaging';
import type { Db } from '@gateway/store';
import { composeComponents, throughputOf } from './campaigns';
import type { CampaignEventName, CampaignEvents } from './events';
import { SqlCampaignRepository, type CampaignRow, type FinishOutcome, type RecipientRow } from './store';

/**
 * The share of a number's rate the pacing uses: sends are spaced 1/(rate × this) apart and at most rate × this
 * leave a process in any second, so that jitter between the call and its arrival (a busy event loop, the network)
 * never puts more than `rate` arrivals in one second at the provider. Measured on a loaded 2-core machine: at
 * 0.95 a stall of ~100 ms now and then put 21 arrivals in a second of a 20 per second number; at 0.9, none.
 */
export const PACING_MARGIN = 0.9;
/** How often each replica looks for campaigns to start, work on, recover and complete. */
const TICK_MS = 250;
/** How long a number sends nothing after the provider's 130429 (its pace is halved too). */
const THROTTLE_PAUSE_MS = 1000;

type Outcome = 'sent' | 'throttled' | 'failed' | 'unknown';

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

/**
 * Sends the running campaigns, in every messaging replica at once. Work lives in the database: each replica
 * claims recipients (a lease), marks them `sending` just before their provider call and never calls for one
 * that is not its claim; the number's send slots are reserved in one shared row (`number_pace`), so all
 * replicas together keep to its rate. A replica that dies loses nothing: its claims go back to the queue when
 * their lease runs out, and what it was sending becomes `unknown`, never sent twice.
 */
export class CampaignRunner {
  private readonly owner = randomUUID();
  private readonly active = new Map<string, Promise<void>>();
  private readonly windows = new Map<string, { times: number[]; limit: number }>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  private readonly sends;

  private readonly repo: SqlCampaignRepository;

  constructor(
    private readonly db: Db,
    private readonly messaging: Pick<Messaging, 'resolve' | 'prepareSend'>,
    private readonly logger: Logger,
    metrics: Metrics,
    private readonly events?: CampaignEvents,
  ) {
    this.repo = new SqlCampaignRepository(db);
    this.sends = metrics.counter('campaign_sends_total', 'Campaign recipients by send outcome', ['outcome']);
  }

  start(): void {
    const loop = () => {
      if (this.stopped) return;
      this.ticking = this.tick()
        .catch((e: unknown) => this.logger.warn({ err: e }, 'campaign tick failed'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(loop, TICK_MS);
        });
    };
    loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
    await Promise.allSettled([...this.active.values()]);
  }

  private async tick(): Promise<void> {
    for (const c of await this.repo.due()) await this.change(c, (repo) => repo.transition(c.id, ['scheduled'], 'running'), 'started');
    await this.repo.recoverExpired();
    for (const c of await this.repo.running()) {
      if (this.active.has(c.id) || this.stopped) continue;
      const work = this.work(c)
        .catch((e: unknown) => this.logger.warn({ err: e, campaign_id: c.id }, 'campaign work failed; retried on the next tick'))
        .finally(() => this.active.delete(c.id));
      this.active.set(c.id, work);
    }
  }

  /** A change of the campaign made by the runner, with its campaign_status event, in one transaction. */
  private async change(c: CampaignRow, move: (repo: SqlCampaignRepository) => Promise<CampaignRow | undefined>, event: CampaignEventName): Promise<void> {
    const externalId = (await this.events?.externalId(c)) ?? null;
    const moved = await this.db.tx(async (q) => {
      const repo = new SqlCampaignRepository(q);
      const row = await move(repo);
      if (row) await this.events?.enqueue(q, row, await repo.counts(c.id), event, externalId);
      return row;
    });
    if (moved) this.events?.kick();
  }

  private async work(c: CampaignRow): Promise<void> {
    const caller = create(m.CallerContextSchema, { tenantId: c.tenant_id, clientId: c.client_id });
    const { client, credentials } = await this.messaging.resolve(caller);
    const rate = Math.min(throughputOf(client), c.rate_per_second ?? Infinity);
    const baseIntervalMs = 1000 / (rate * PACING_MARGIN);
    const window = localWindow(this.windows, credentials.phoneNumberId, Math.max(1, Math.floor(rate * PACING_MARGIN)));
    // about a quarter of a second of sends per batch
    const batch = Math.max(1, Math.floor(rate / 4));
    // the campaign's status, read every 200 ms while it is worked on: a pause or cancel stops the next call
    let status = c.status;
    const watch = setInterval(() => {
      this.repo
        .byId(c.id)
        .then((x) => (status = x?.status ?? 'cancelled'))
        .catch(() => undefined);
    }, 200);
    try {
      for (;;) {
        if (this.stopped) return;
        const current = await this.repo.byId(c.id);
        status = current?.status ?? 'cancelled';
        if (status !== 'running') return;
        const claimed = await this.repo.claim(c.id, this.owner, batch);
        if (!claimed.length) {
          await this.repo.reconcileStatuses(c.id);
          await this.change(c, (repo) => repo.completeIfDone(c.id), 'completed');
          return;
        }
        const skipped = c.category === 'MARKETING' ? await this.repo.skipOptedOut(c.id, c.client_id, this.owner) : new Set<string>();
        if (skipped.size) this.sends.inc({ outcome: 'skipped' }, skipped.size);
        // everything but the provider call happens before the slots: a call then leaves at its slot
        const prepared = (
          await Promise.all(claimed.filter((r) => !skipped.has(String(r.seq))).map(async (r, i) => ({ r, call: await this.prepare(c, r, i === 0) })))
        ).filter((p): p is { r: RecipientRow; call: () => Promise<string> } => !!p.call);
        const sending = await this.repo.markBatchSending(
          c.id,
          prepared.map((p) => String(p.r.seq)),
          this.owner,
        );
        const toSend = prepared.filter((p) => sending.has(String(p.r.seq)));
        if (!toSend.length) continue;
        const { firstInMs, intervalMs } = await this.repo.reserveSlots(credentials.phoneNumberId, toSend.length, baseIntervalMs);
        const t0 = Date.now() + firstInMs;
        let throttled = false;
        // the batch's outcomes, written in one statement once it is over (a replica killed before that leaves its
        // recipients `sending`: unknown, never sent twice)
        const outcomes: Array<{ seq: string } & FinishOutcome> = [];
        // one batch at a time: claiming and preparing the next one while this one is sent (tried) runs database work
        // between a call's slot and its request leaving, which bunched arrivals up (22 in a second at 20 per second)
        await Promise.all(
          toSend.map(async ({ r, call }, i) => {
            await sleep(t0 + i * intervalMs - Date.now());
            await window.take(() => throttled || status !== 'running' || this.stopped);
            // never called: skipped if the campaign was cancelled, else back to the queue (paused, stopping, or
            // after a 130429: the rest of the batch waits for the slower pace)
            if (status === 'cancelled') return outcomes.push({ seq: String(r.seq), status: 'skipped', reason: 'cancelled' });
            if (throttled || status !== 'running' || this.stopped) return outcomes.push({ seq: String(r.seq), status: 'queued' });
            const { outcome, finish } = await this.call(c, r, call);
            outcomes.push({ seq: String(r.seq), ...finish });
            this.sends.inc({ outcome });
            if (outcome === 'throttled') throttled = true;
          }),
        );
        await this.repo.finishMany(c.id, outcomes);
        await this.repo.touchLastSend(c.id);
        if (throttled) await this.repo.throttle(credentials.phoneNumberId, THROTTLE_PAUSE_MS);
        else await this.repo.recover(credentials.phoneNumberId);
      }
    } finally {
      clearInterval(watch);
    }
  }

  /** A recipient's send, prepared (checked, resolved, built); undefined when it cannot be sent (recorded as such). */
  private async prepare(c: CampaignRow, r: RecipientRow, checkTemplate: boolean): Promise<(() => Promise<string>) | undefined> {
    const body = {
      client_id: c.client_id,
      to: /^\d+$/.test(r.to_user) ? `+${r.to_user}` : r.to_user,
      template_name: c.template_name,
      lang: c.lang,
      components: composeComponents(c.components, r.params),
    };
    try {
      return await this.messaging.prepareSend(
        create(m.SendRequestSchema, { caller: { tenantId: c.tenant_id, clientId: c.client_id }, kind: 'template', bodyJson: JSON.stringify(body) }),
        // the template (approved, in its language) once per batch; each recipient's values were checked when added
        { checkTemplate },
      );
    } catch (e) {
      // nothing was sent: a passing failure (directory unreachable) is tried again, others end the recipient
      const err = e instanceof AppError ? e : undefined;
      if (!err || err.kind === 'unavailable' || err.kind === 'timeout') {
        this.logger.warn({ err: e, campaign_id: c.id }, 'campaign send could not be prepared; queued again');
        await this.repo.finish(c.id, String(r.seq), { status: 'queued' });
      } else {
        await this.repo.finish(c.id, String(r.seq), { status: 'failed', errorCode: err.code, reason: err.message.slice(0, 500) });
        this.sends.inc({ outcome: 'failed' });
      }
      return undefined;
    }
  }

  /** The provider call of a recipient marked `sending`: what happened, and what becomes of the recipient. */
  private async call(c: CampaignRow, r: RecipientRow, call: () => Promise<string>): Promise<{ outcome: Outcome; finish: FinishOutcome }> {
    try {
      const messageId = await call();
      return { outcome: 'sent', finish: { status: 'sent', messageId } };
    } catch (e) {
      const err = e instanceof AppError ? e : undefined;
      const providerCode = (err?.details.provider_error as { code?: unknown } | undefined)?.code;
      // refused by the provider: not sent, safe to send later
      if (providerCode === 130429 || err?.code === 'provider_throughput_limited') return { outcome: 'throttled', finish: { status: 'queued' } };
      if (!err || err.kind === 'timeout' || err.kind === 'unavailable' || err.kind === 'internal') {
        // it may have reached the provider: never sent again
        this.logger.warn({ err: e, campaign_id: c.id, seq: String(r.seq) }, 'campaign send outcome unknown');
        return { outcome: 'unknown', finish: { status: 'unknown', reason: 'outcome_unknown', errorCode: err?.code } };
      }
      if (providerCode === 131050) await this.repo.addOptOuts(c.client_id, [r.to_user], 'provider_131050');
      return {
        outcome: 'failed',
        finish: { status: 'failed', errorCode: providerCode !== undefined ? String(providerCode) : err.code, reason: err.message.slice(0, 500) },
      };
    }
  }
}

/**
 * This process's provider calls per number in the last second: a call waits while `limit` were made in it (a late
 * timer must not bunch calls up). Shared by every campaign of the runner (the process) on that number.
 */
function localWindow(windows: Map<string, { times: number[]; limit: number }>, phoneNumberId: string, limit: number) {
  const w = windows.get(phoneNumberId) ?? { times: [], limit };
  w.limit = limit;
  windows.set(phoneNumberId, w);
  return {
    async take(cancelled: () => boolean): Promise<void> {
      for (;;) {
        const now = Date.now();
        w.times = w.times.filter((t) => t > now - 1000);
        if (w.times.length < w.limit || cancelled()) {
          w.times.push(now);
          return;
        }
        await sleep(w.times[0] + 1000 - now + 1);
      }
    },
  };
}
