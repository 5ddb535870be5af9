import { randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { messaging as m } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import type { Logger } from '@gateway/logger';
import type { Metrics } from '@gateway/runtime';
import type { Messaging } from '../messaging';
import type { NewMessage } from '../store/messages';
import type { Db } from '@gateway/store';
import { composeComponents, throughputOf } from './campaigns';
import type { CampaignEventName, CampaignEvents } from './events';
import { DEFERRED_BY_PROVIDER, MESSAGING_LIMIT_REFUSAL, messagingLimitOf, portfolioOf, PortfolioWindows } from './messaging-limit';
import type { NumberShare } from './priority';
import { SqlCampaignRepository, type CampaignRow, type FinishOutcome, type RecipientRow } from './store';
import { DepartureWindow, pacingWindowMs } from './departure-window';

/** Batches being sent or finished at once per campaign worker: the next one is claimed and prepared while one is sent. */
const MAX_BATCHES_IN_FLIGHT = 3;
/** Batches whose recipients are `sending` at once per campaign worker: what a SIGKILL may leave `unknown`. */
const MAX_BATCHES_SENDING = 2;
/** How often each replica looks for campaigns to start, work on, recover and complete. */
const TICK_MS = 250;
/** How often a campaign with nothing queued is swept for statuses that overtook their sends (`sweep`). */
const SWEEP_MS = 5000;
/** How long a number sends nothing after the provider's 130429 (its pace is halved too). */
const THROTTLE_PAUSE_MS = 1000;

type Outcome = 'sent' | 'throttled' | 'failed' | 'unknown' | 'deferred';
/** The portfolio's messaging limit a campaign keeps to (messaging-limit.ts): unique users per rolling 24 hours. */
interface Reach {
  portfolio: string;
  uniqueUsers: number | undefined;
}
/** A claimed recipient with its send, ready to call. */
interface Prepared {
  r: RecipientRow;
  call: () => Promise<string>;
}
/** A claimed batch, prepared: its sends, and where their calls put their message records (stored together). */
interface Batch {
  sends: Prepared[];
  records: NewMessage[];
}

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
  private readonly limiters = new Map<string, DepartureWindow>();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  private readonly sends;

  private readonly repo: SqlCampaignRepository;
  private readonly portfolios: PortfolioWindows;
  /** When each campaign's deferred recipients were last looked at (at most once a second). */
  private readonly deferredCheckedAt = new Map<string, number>();
  /** When each campaign with nothing queued was last swept for statuses that overtook their sends (`sweep`). */
  private readonly sweptAt = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly messaging: Pick<Messaging, 'resolve' | 'prepareSend' | 'recordSent'>,
    private readonly logger: Logger,
    metrics: Metrics,
    private readonly events?: CampaignEvents,
    /** The tenant's own sends on a number take their slots from its campaigns (priority.ts). */
    private readonly share?: NumberShare,
  ) {
    share?.attach(this.limiters);
    this.repo = new SqlCampaignRepository(db);
    this.portfolios = new PortfolioWindows(db);
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
    const phone = credentials.phoneNumberId;
    const rate = Math.min(throughputOf(client), c.rate_per_second ?? Infinity);
    const limit = Math.max(1, Math.floor(rate));
    const numberLimit = Math.max(1, Math.floor(throughputOf(client)));
    // this process's calls on the number (every campaign's, and the tenant's own sends: priority.ts) within the
    // number's throughput; the campaign's own calls within its lower `rate_per_second`, if it has one
    const numberWindow = localLimiter(this.limiters, phone, numberLimit);
    const ownWindow = limit < numberLimit ? new DepartureWindow(limit) : undefined;
    // slots spaced so that `limit` of them span the limiter's window: the shared pace then rarely makes one wait
    const baseIntervalMs = pacingWindowMs(limit) / limit;
    // how late a call may leave after its slot: half the jitter the window absorbs
    const lateMs = (pacingWindowMs(limit) - 1000) / 2;
    // about a quarter of a second of sends per batch
    const batch = Math.max(1, Math.floor(rate / 4));
    const reach: Reach = { portfolio: portfolioOf(client), uniqueUsers: messagingLimitOf(client) };
    await this.releaseDeferred(c, reach);
    // from here on the tenant's own sends on the number take slots from this campaign (left in the finally below)
    // (a slot of the number's rate each: a slot of the campaign's slower one would stall it whenever the tenant
    // sends faster than the campaign does)
    const leave = this.share?.enter(phone, pacingWindowMs(numberLimit) / numberLimit);
    // the campaign's status, read every 200 ms while it is worked on: a pause or cancel stops the next call
    const state = { status: c.status as CampaignRow['status'], throttled: false };
    const watch = setInterval(() => {
      this.repo
        .byId(c.id)
        .then((x) => (state.status = x?.status ?? 'cancelled'))
        .catch(() => undefined);
    }, 200);
    const halted = () => state.throttled || state.status !== 'running' || this.stopped;
    const cancelled = () => state.status === 'cancelled';
    // batches whose calls were started: their outcomes are written (one statement each) once their calls are over
    const finishing = new Set<Promise<void>>();
    // the next batch, claimed and prepared while the one before it is sent
    let next: Promise<Batch | undefined> | undefined;
    // the outcomes of the batches whose calls were started, being written (their recipients no longer `sending`)
    const writing: Array<Promise<unknown>> = [];
    try {
      for (;;) {
        if (halted()) {
          // a 130429 (or a stop): what was started ends first, then the number's pace slows down for everyone
          await Promise.all(finishing);
          if (state.throttled) {
            await this.repo.throttle(phone, THROTTLE_PAUSE_MS);
            state.throttled = false;
          }
        }
        if (halted() || !next) {
          const current = await this.repo.byId(c.id);
          state.status = current?.status ?? 'cancelled';
        }
        if (state.status !== 'running' || this.stopped) {
          const claimed = await next?.catch(() => undefined);
          next = undefined;
          if (claimed?.sends.length)
            await this.repo.releaseClaims(
              c.id,
              claimed.sends.map((p) => String(p.r.seq)),
              this.owner,
              cancelled(),
            );
          return;
        }
        const claimed = await (next ?? this.claimBatch(c, batch, reach));
        next = undefined;
        if (!claimed) {
          await Promise.all(finishing);
          await this.sweep(c.id);
          await this.change(c, (repo) => repo.completeIfDone(c.id), 'completed');
          return;
        }
        const prepared = claimed.sends;
        // recipients again: the next time the queue is empty the campaign is swept at once
        this.sweptAt.delete(c.id);
        if (!prepared.length) continue;
        // at most two batches `sending` at a time (a replica killed now leaves at most two batches `unknown`): this
        // one is marked while the answers and outcomes of the one before are still on their way, so the number's
        // slots go on without the gap of a round trip and two statements at every batch (about 60 ms a batch of 62
        // at 250 per second on a loaded machine: a fifth of the rate)
        while (writing.length >= MAX_BATCHES_SENDING) await writing.shift();
        // the batch's last step before its calls, and its slots of the number's shared pace (one statement)
        const slots = await this.repo.markSendingAndReserve(
          c.id,
          prepared.map((p) => String(p.r.seq)),
          this.owner,
          { phoneNumberId: phone, n: prepared.length, baseIntervalMs },
        );
        const toSend = prepared.filter((p) => slots.sending.has(String(p.r.seq)));
        // claimed and prepared now, while this batch is sent
        next = this.claimBatch(c, batch, reach);
        next.catch(() => undefined);
        const outcomes: Array<{ seq: string } & FinishOutcome> = [];
        const calls: Array<Promise<void>> = [];
        let t0 = Date.now() + slots.firstInMs;
        let first = 0;
        let intervalMs = slots.intervalMs;
        let reserveAgain = true;
        for (let i = 0; i < toSend.length; i++) {
          const { r, call } = toSend[i];
          // a call leaves at its slot; one this process reaches late (a stalled event loop) would leave beside
          // another replica's next calls: the slots from there on are given up and the rest get new ones (once a
          // batch: a process stalling again and again would spend a statement per call; its own window still holds)
          while (!halted()) {
            const wait = t0 + (i - first) * intervalMs - Date.now();
            if (wait >= 1) await sleep(wait);
            else if (-wait <= lateMs || !reserveAgain) break;
            else {
              const again = await this.repo.reserveSlots(phone, toSend.length - i, baseIntervalMs);
              [t0, first, intervalMs, reserveAgain] = [Date.now() + again.firstInMs, i, again.intervalMs, false];
            }
          }
          const departures = [await ownWindow?.take(halted), await numberWindow.take(halted)];
          // never called: skipped if the campaign was cancelled, else back to the queue (paused, stopping, or
          // after a 130429: the rest of the batch waits for the slower pace)
          if (cancelled() || halted()) {
            for (const d of departures) d?.();
            outcomes.push(cancelled() ? { seq: String(r.seq), status: 'skipped', reason: 'cancelled' } : { seq: String(r.seq), status: 'queued' });
          } else
            calls.push(
              this.call(c, r, call).then(({ outcome, finish }) => {
                // when it was answered bounds when it arrived (departure-window.ts)
                const answeredAt = Date.now();
                for (const d of departures) d?.(answeredAt);
                outcomes.push({ seq: String(r.seq), ...finish });
                this.sends.inc({ outcome });
                if (outcome === 'throttled') state.throttled = true;
              }),
            );
        }
        // the batch's outcomes and the campaign's last send time, written in one statement once its calls are over
        // (a replica killed before that leaves its recipients `sending`: unknown, never sent twice); its message
        // records and the statuses that overtook them after that, while the next batch is sent
        const finished = Promise.all(calls).then(() => this.repo.finishMany(c.id, outcomes, { lastSend: true }));
        writing.push(finished.catch(() => undefined));
        const done = finished
          .then(async () => {
            await this.messaging.recordSent(claimed.records);
            // statuses that came before the batch's records were stored
            await this.repo.reconcileStatuses(
              c.id,
              outcomes.filter((o) => o.status === 'sent').map((o) => o.seq),
            );
            if (!state.throttled && slots.intervalMs > baseIntervalMs * 1.0001) await this.repo.recover(phone);
          })
          .catch((e: unknown) => this.logger.warn({ err: e, campaign_id: c.id }, 'campaign batch outcomes not written; its recipients become unknown'))
          .finally(() => finishing.delete(done));
        finishing.add(done);
        while (finishing.size >= MAX_BATCHES_IN_FLIGHT) await Promise.race(finishing);
      }
    } finally {
      clearInterval(watch);
      leave?.();
      await Promise.all(finishing);
      // a batch claimed ahead and never sent (an error above): its recipients go back to the queue now
      const claimed = await next?.catch(() => undefined);
      if (claimed?.sends.length)
        await this.repo
          .releaseClaims(
            c.id,
            claimed.sends.map((p) => String(p.r.seq)),
            this.owner,
            false,
          )
          .catch(() => undefined);
    }
  }

  /**
   * Claims up to `batch` queued recipients and prepares their sends (opted-out ones skipped, unpreparable ones
   * recorded): undefined when none was queued.
   */
  private async claimBatch(c: CampaignRow, batch: number, reach: Reach): Promise<Batch | undefined> {
    const claimed = await this.repo.claim(c.id, this.owner, batch);
    if (!claimed.length) return undefined;
    const skipped = c.category === 'MARKETING' ? await this.repo.skipOptedOut(c.id, c.client_id, this.owner) : new Set<string>();
    if (skipped.size) this.sends.inc({ outcome: 'skipped' }, skipped.size);
    const deferred = await this.deferOverLimit(
      c,
      claimed.filter((r) => !skipped.has(String(r.seq))),
      reach,
    );
    for (const seq of deferred) skipped.add(seq);
    // everything but the provider call happens before the slots: a call then leaves at its slot
    const out: Batch = { sends: [], records: [] };
    const caller = create(m.CallerContextSchema, { tenantId: c.tenant_id, clientId: c.client_id });
    let first = true;
    for (const r of claimed) {
      if (skipped.has(String(r.seq))) continue;
      const call = await this.prepare(c, caller, r, first, out.records);
      first = false;
      if (call) out.sends.push({ r, call });
    }
    return out;
  }

  /**
   * The portfolio's messaging limit (messaging-limit.ts): the claimed recipients beyond the unique users its window
   * has room for are deferred until it frees; answers their seqs. Nothing when the limit is unlimited or unknown.
   */
  private async deferOverLimit(c: CampaignRow, rows: RecipientRow[], reach: Reach): Promise<Set<string>> {
    if (reach.uniqueUsers === undefined || !rows.length) return new Set();
    const { allowed, freesAt } = await this.portfolios.take(
      reach.portfolio,
      reach.uniqueUsers,
      rows.map((r) => r.to_user),
    );
    const over = rows.filter((r) => !allowed.has(r.to_user)).map((r) => String(r.seq));
    await this.portfolios.defer(c.id, over, freesAt, this.owner);
    if (over.length) this.sends.inc({ outcome: 'deferred' }, over.length);
    return new Set(over);
  }

  /**
   * Refusals and statuses that overtook their sends, looked for in the whole campaign once it has nothing queued:
   * at once, then at most every `SWEEP_MS` while it waits for its statuses (up to 24 hours; each is a scan of its
   * sent recipients, every tick it was four a second). Each batch's own are taken right after its records.
   */
  private async sweep(campaignId: string): Promise<void> {
    const last = this.sweptAt.get(campaignId) ?? 0;
    if (Date.now() - last < SWEEP_MS) return;
    // bounded: a campaign that ended leaves its entry behind
    if (this.sweptAt.size > 10_000) this.sweptAt.clear();
    this.sweptAt.set(campaignId, Date.now());
    await this.portfolios.deferRefusedOf(campaignId);
    await this.repo.reconcileStatuses(campaignId);
  }

  /** Deferred recipients whose time came, or that the portfolio's window now has room for, go back to the queue. */
  private async releaseDeferred(c: CampaignRow, reach: Reach): Promise<void> {
    const last = this.deferredCheckedAt.get(c.id) ?? 0;
    if (Date.now() - last < 1000) return;
    // bounded: a campaign that ended leaves its entry behind
    if (this.deferredCheckedAt.size > 10_000) this.deferredCheckedAt.clear();
    this.deferredCheckedAt.set(c.id, Date.now());
    const n = await this.portfolios.release(c.id, reach.portfolio, reach.uniqueUsers);
    if (n) this.logger.info({ campaign_id: c.id, released: n }, 'deferred campaign recipients queued again');
  }

  /** A recipient's send, prepared (checked, resolved, built); undefined when it cannot be sent (recorded as such). */
  private async prepare(
    c: CampaignRow,
    caller: m.CallerContext,
    r: RecipientRow,
    checkTemplate: boolean,
    recordTo: NewMessage[],
  ): Promise<(() => Promise<string>) | undefined> {
    const body = {
      client_id: c.client_id,
      // a phone number's digits, or a business-scoped user id (the provider's `recipient`)
      ...(/^\d+$/.test(r.to_user) ? { to: `+${r.to_user}` } : { recipient: r.to_user }),
      template_name: c.template_name,
      lang: c.lang,
      components: composeComponents(c.components, r.params),
    };
    try {
      return await this.messaging.prepareSend(
        { caller, kind: 'template', body },
        // the template (approved, in its language) once per batch; each recipient's values were checked when added;
        // the batch's message records stored together once its calls are over
        { checkTemplate, recordTo },
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
      // the portfolio's messaging limit (or the user's marketing cap): not reached, tried again in 24 hours
      if (providerCode === MESSAGING_LIMIT_REFUSAL)
        return { outcome: 'deferred', finish: { status: 'deferred', errorCode: String(providerCode), reason: DEFERRED_BY_PROVIDER } };
      if (providerCode === 131050) await this.repo.addOptOuts(c.client_id, [r.to_user], 'provider_131050');
      return {
        outcome: 'failed',
        finish: { status: 'failed', errorCode: providerCode !== undefined ? String(providerCode) : err.code, reason: err.message.slice(0, 500) },
      };
    }
  }
}

function localLimiter(limiters: Map<string, DepartureWindow>, phoneNumberId: string, limit: number): DepartureWindow {
  let w = limiters.get(phoneNumberId);
  if (!w) limiters.set(phoneNumberId, (w = new DepartureWindow(limit)));
  else w.setLimit(limit);
  return w;
}
