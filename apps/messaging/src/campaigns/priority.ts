import type { Logger } from '@gateway/logger';
import type { Metrics } from '@gateway/runtime';
import type { Db } from '@gateway/store';
import type { Departure, DepartureWindow } from './departure-window';

/** Up to `FIRST_PLACE_MAX_WAIT_MS` (1 s): less than one slot of the number's rate while its window keeps up. */
const YIELD_WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

/**
 * The tenant's own sends keep priority over campaign sends on a number's rate (issue 26). A send of the tenant's
 * (`send-*`) on a number a campaign is sending on goes ahead of the campaign's calls and takes a slot from it:
 *
 * - in this process, it takes the next place of the campaign's window of calls (the runner's `DepartureWindow` of
 *   the number) ahead of the campaign: at once while the window has room, else as soon as it has (less than one
 *   slot within the number's rate; the campaign's calls wait meanwhile; at most `FIRST_PLACE_MAX_WAIT_MS`). Its
 *   answer bounds the call `limit` places later as a campaign call's does (a send delayed on its way longer than
 *   the window's margin, on a starved machine, arrives later than its start says);
 * - across replicas, it moves the number's next free slot (`number_pace.next_at`) one slot of the number's rate
 *   later (pushed no further than two seconds ahead of now), so every replica's next batch starts that much later.
 *
 * So the campaign yields the number's rate to the tenant's sends, and their sum stays within it as long as the
 * tenant's own sends alone do. A send that never waited was the limit + 1st arrival of a second whenever the
 * campaign had just filled the window (CI: a 429 for one of 4 sends a second beside a campaign on a 10 per second
 * number).
 */
export class NumberShare {
  /** Numbers campaigns are sending on in this process: the campaign's slot length (ms) and how many work on it. */
  private readonly busy = new Map<string, { slotMs: number; campaigns: number }>();
  /** Slots to take per number, not yet written (pushes are coalesced: one statement at a time per number). */
  private readonly pending = new Map<string, number>();
  private readonly writing = new Set<string>();
  private windows: Map<string, Pick<DepartureWindow, 'takeFirst'>> | undefined;
  /** How long the tenant's sends waited for their place (an operator's view of what campaigns cost them). */
  private readonly waits?: ReturnType<Metrics['histogram']>;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    metrics?: Pick<Metrics, 'histogram'>,
  ) {
    this.waits = metrics?.histogram(
      'campaign_yield_wait_seconds',
      "How long the tenant's own sends on a number its campaigns were sending on waited for their place (0: at once)",
      [],
      YIELD_WAIT_BUCKETS,
    );
  }

  /** The runner's per-number windows of calls (the tenant's sends are counted in them). */
  attach(windows: Map<string, Pick<DepartureWindow, 'takeFirst'>>): void {
    this.windows = windows;
  }

  /** A campaign works on the number, whose rate gives slots `slotMs` apart; the answer ends it. */
  enter(phoneNumberId: string, slotMs: number): () => void {
    const b = this.busy.get(phoneNumberId) ?? { slotMs, campaigns: 0 };
    b.slotMs = Math.max(b.slotMs, slotMs);
    b.campaigns += 1;
    this.busy.set(phoneNumberId, b);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      b.campaigns -= 1;
      if (b.campaigns <= 0 && this.busy.get(phoneNumberId) === b) this.busy.delete(phoneNumberId);
    };
  }

  /**
   * A send of the tenant's is about to leave on the number: a campaign on the number yields it a slot; it leaves
   * when the answer (a promise only when it has to wait for a place) is there. The departure, when there is one, is
   * to be told when the provider answered (or the call failed).
   */
  singleSend(phoneNumberId: string): Departure | Promise<Departure> | undefined {
    const b = this.busy.get(phoneNumberId);
    if (!b) return undefined;
    const departure = this.windows?.get(phoneNumberId)?.takeFirst();
    this.pending.set(phoneNumberId, (this.pending.get(phoneNumberId) ?? 0) + 1);
    void this.flush(phoneNumberId, b.slotMs);
    if (typeof departure === 'function') this.waits?.observe(0);
    else if (departure) {
      const asked = performance.now();
      void departure.then(() => this.waits?.observe((performance.now() - asked) / 1000));
    }
    return departure;
  }

  private async flush(phoneNumberId: string, slotMs: number): Promise<void> {
    if (this.writing.has(phoneNumberId)) return;
    this.writing.add(phoneNumberId);
    try {
      for (;;) {
        const n = this.pending.get(phoneNumberId) ?? 0;
        if (!n) return;
        this.pending.delete(phoneNumberId);
        await this.db.query(
          // pushed at most to two seconds ahead of now (beyond the batches a campaign reserves ahead, under a second):
          // tenant sends beyond the number's own rate (the provider refuses those anyway) must not hold a campaign
          // back for longer than they last; never moved back: slots already reserved stand
          `UPDATE number_pace SET next_at = LEAST(
             GREATEST(next_at, clock_timestamp()) + make_interval(secs => $2::double precision / 1000),
             GREATEST(next_at, clock_timestamp() + interval '2 seconds'))
           WHERE phone_number_id = $1`,
          [phoneNumberId, n * slotMs],
        );
      }
    } catch (e) {
      this.logger.warn({ err: e, phone_number_id: phoneNumberId }, "a tenant's send could not take its slot from the campaign's pace");
    } finally {
      this.writing.delete(phoneNumberId);
    }
  }
}
