/**
 * How much longer than one second the local limiter's window is, at least (ms): a process never starts more than
 * a number's limit of calls within that window, and the shared pace spaces slots that far apart, so that the calls
 * still reach the provider at most `limit` in any one-second window (which it counts on arrival) when some are
 * delayed on their way by up to this much (a busy event loop, the provider's own). 40 ms keeps 96 % of a limit
 * of 250 per second (240). A longer delay shows in the call's round trip: see `DepartureWindow`.
 */
export const PACING_JITTER_MS = 40;
/**
 * The limiter's window for a limit: one second plus the jitter it absorbs, at least three sends' spacing (a slow
 * number's sends are far apart: a 20 per second one absorbs 150 ms; on a 2-core machine at a load of 16, 40 ms
 * and 100 ms each let a 21st arrival into one second).
 */
export const pacingWindowMs = (limit: number): number => 1000 + Math.max(PACING_JITTER_MS, 3000 / limit);
/**
 * How long a call still on its way holds the call `limit` places after it (ms after its start): its arrival is
 * unknown until it is answered; one that takes longer than this (a provider timeout) no longer holds the number.
 */
const IN_FLIGHT_HOLD_MS = 3000;
/** How often a call held by one still on its way (or by a tenant's send waiting for a place) looks again (ms). */
const IN_FLIGHT_POLL_MS = 5;
/**
 * How long a tenant's own send waits for a place at most (ms). Within the number's rate it waits for less than one
 * slot (the campaign's calls wait behind it); tenant sends beyond the rate on their own are not queued: they go,
 * and the provider answers them (130429).
 */
export const FIRST_PLACE_MAX_WAIT_MS = 1000;
/**
 * Kept beyond an answer's bound (ms): the bound is exact only to the shortest round trip's split between its two
 * ways, and the provider stamps arrivals in whole milliseconds.
 */
const ANSWER_SLACK_MS = 10;
/** The round trips the shortest is taken of (the call's own share of a round trip, below). */
const ROUND_TRIPS_KEPT = 256;

/**
 * A call's departure as recorded: `answered(at)` when the provider's answer (or failure) came back; `answered()`
 * without a time when the call was not made after all (it holds nothing then).
 */
export type Departure = (answeredAt?: number) => void;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, Math.max(0, ms)));

/**
 * This process's provider calls per number: a call waits while `limit` of them started within the last
 * `pacingWindowMs(limit)` (a late timer must not bunch calls up). The start times of the last `limit` calls, in a ring;
 * shared by every campaign of the runner (the process) on that number and the tenant's own sends (`NumberShare`);
 * a campaign with a lower `rate_per_second` keeps its own besides.
 *
 * The window's margin absorbs that much delay on a call's way to the provider. A longer one (the machine starved, a
 * stalled event loop on either side) would let the call `limit` places later arrive within the same second, so the
 * answers bound it too: a call the provider answered at `a` arrived there no later than `a` minus the answer's own
 * way back, so the call `limit` places after it starts no earlier than `a + 1000 - shortest round trip` (the
 * shortest round trip seen on the number stands for the part of every round trip that is not delay; 10 ms more). While the
 * round trips stay near their shortest this is earlier than the window and costs nothing; a call whose round trip
 * grew by more than the margin holds the next ones back by what it grew.
 */
export class DepartureWindow {
  private times: number[];
  /** When each call of `times` was answered: NaN while it is on its way, -Infinity when it bounds nothing. */
  private answers: number[];
  /** Which departure holds each place (an answer for a place taken since is ignored). */
  private owners: number[];
  private next = 0;
  private departures = 0;
  private windowMs: number;
  private readonly roundTrips: number[] = [];
  private shortestRoundTrip = Infinity;
  /** Tenant sends waiting for a place (`takeFirst`): the campaign's calls wait while there are any. */
  private waitingFirst = 0;

  constructor(private limit: number) {
    this.times = new Array<number>(limit).fill(-Infinity);
    this.answers = new Array<number>(limit).fill(-Infinity);
    this.owners = new Array<number>(limit).fill(0);
    this.windowMs = pacingWindowMs(limit);
  }

  /** The number's throughput changed (the directory told a new one). */
  setLimit(limit: number): void {
    if (limit === this.limit) return;
    const keep = <T>(ring: T[], fill: T): T[] => {
      const recent = [...ring.slice(this.next), ...ring.slice(0, this.next)].slice(-limit);
      return [...new Array<T>(Math.max(0, limit - recent.length)).fill(fill), ...recent];
    };
    this.times = keep(this.times, -Infinity);
    this.answers = keep(this.answers, -Infinity);
    this.owners = keep(this.owners, 0);
    this.next = 0;
    this.limit = limit;
    this.windowMs = pacingWindowMs(limit);
  }

  /** How long until one more call may start (0: now). */
  waitMs(now: number): number {
    const started = this.times[this.next];
    let at = started + this.windowMs;
    const answered = this.answers[this.next];
    if (Number.isNaN(answered)) {
      // on its way: it may still arrive at any moment
      if (now - started < IN_FLIGHT_HOLD_MS) at = Math.max(at, now + IN_FLIGHT_POLL_MS);
    } else if (answered !== -Infinity && this.shortestRoundTrip !== Infinity) {
      at = Math.max(at, answered - this.shortestRoundTrip + 1000 + ANSWER_SLACK_MS);
    }
    return Math.max(0, at - now);
  }

  /**
   * Records a call starting at `now`. With `follow`, the call's answer bounds the one `limit` places later (the
   * answer says when through the `Departure`); without (a tenant's own send, answered elsewhere), only its start does.
   */
  record(now: number, follow = false): Departure {
    const place = this.next;
    const owner = ++this.departures;
    this.times[place] = now;
    this.answers[place] = follow ? NaN : -Infinity;
    this.owners[place] = owner;
    this.next = (place + 1) % this.limit;
    let settled = !follow;
    return (answeredAt) => {
      if (settled) return;
      settled = true;
      if (answeredAt !== undefined) this.roundTrip(answeredAt - now);
      if (this.owners[place] === owner) this.answers[place] = answeredAt ?? -Infinity;
    };
  }

  /**
   * Waits for a free place in the window and takes it, following the call's answer; undefined at once when
   * `cancelled` (that call is not made). A tenant's send waiting for a place goes first.
   */
  async take(cancelled: () => boolean): Promise<Departure | undefined> {
    for (;;) {
      if (cancelled()) return undefined;
      const now = Date.now();
      const wait = this.waitingFirst > 0 ? IN_FLIGHT_POLL_MS : this.waitMs(now);
      if (wait === 0) return this.record(now, true);
      await sleep(wait);
    }
  }

  /**
   * A tenant's own send takes the next place ahead of every campaign call, following its answer: at once while the
   * window has room (no promise then), else when it has (the campaign's calls wait meanwhile), at most
   * `maxWaitMs` after now. Not holding it at all let it be the limit + 1st arrival of a second whenever the
   * campaign had just filled the window (a 429 seen in CI).
   */
  takeFirst(maxWaitMs = FIRST_PLACE_MAX_WAIT_MS): Departure | Promise<Departure> {
    const now = Date.now();
    if (this.waitingFirst === 0 && this.waitMs(now) === 0) return this.record(now, true);
    return this.waitFirst(now + maxWaitMs);
  }

  private async waitFirst(deadline: number): Promise<Departure> {
    this.waitingFirst += 1;
    try {
      for (;;) {
        const now = Date.now();
        const wait = Math.min(this.waitMs(now), deadline - now);
        if (wait <= 0) return this.record(now, true);
        await sleep(wait);
      }
    } finally {
      this.waitingFirst -= 1;
    }
  }

  /** The shortest of the last `ROUND_TRIPS_KEPT` round trips (a longer one since is delay, not distance). */
  private roundTrip(ms: number): void {
    const trip = Math.max(0, ms);
    this.roundTrips.push(trip);
    const dropped = this.roundTrips.length > ROUND_TRIPS_KEPT ? this.roundTrips.shift() : undefined;
    if (trip <= this.shortestRoundTrip) this.shortestRoundTrip = trip;
    else if (dropped === this.shortestRoundTrip) this.shortestRoundTrip = Math.min(...this.roundTrips);
  }
}
