/**
 * Group commit: items that arrive together are written by one call of `write`, and each caller's promise
 * settles once the batch holding its item is written (or fails with it). Under load thousands of single-row
 * writes become a few multi-row ones; when idle an item waits at most `maxDelayMs`, and while every lane is
 * writing, the items that arrive wait for the next free lane and go in one batch (up to `maxBatch`), so the
 * slower the commits, the larger the batches, not the longer the queue of small ones. Batches are written one
 * after another, in arrival order; with `lanes` > 1, up to that many batches are written at once (for writes
 * whose order does not matter: while one batch waits for its commit, the next is already being written, so a
 * slow commit, a busy server's WAL flush, no longer bounds the rate to one batch per commit).
 */
export class GroupCommit<T> {
  private pending: Array<{ item: T; resolve: () => void; reject: (e: unknown) => void }> = [];
  private timer: NodeJS.Timeout | undefined;
  /** One chain of batches per lane, and how many batches each has written or waiting. */
  private readonly lanes: Array<Promise<void>>;
  private readonly queued: number[];

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly opts: { maxBatch?: number; maxDelayMs?: number; lanes?: number; onError?: (e: unknown, size: number) => void } = {},
  ) {
    const lanes = Math.max(1, opts.lanes ?? 1);
    this.lanes = Array.from({ length: lanes }, () => Promise.resolve());
    this.queued = new Array<number>(lanes).fill(0);
  }

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= (this.opts.maxBatch ?? 250)) void this.flush();
      else if (!this.held) this.timer ??= setTimeout(() => this.cut(), this.opts.maxDelayMs ?? 2);
    });
  }

  /** Items wait for a lane: every lane is writing, and the next free one takes all of them at once. */
  private held = false;

  /** The delay is over: the items go now if a lane is free, else with the next one to free (one batch, not many). */
  private cut(): void {
    this.timer = undefined;
    if (Math.min(...this.queued) > 0) this.held = true;
    else void this.flush();
  }

  /** Writes what is waiting (at shutdown, or to bound latency); resolves once every batch so far is written. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.held = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length) {
      // the lane with the fewest batches in progress (the only one, by default)
      const lane = this.queued.indexOf(Math.min(...this.queued));
      this.queued[lane]++;
      this.lanes[lane] = this.lanes[lane].then(async () => {
        try {
          await this.write(batch.map((b) => b.item));
          for (const b of batch) b.resolve();
        } catch (e) {
          this.opts.onError?.(e, batch.length);
          for (const b of batch) b.reject(e);
        } finally {
          this.queued[lane]--;
          if (this.held && this.pending.length) void this.flush();
        }
      });
    }
    return this.lanes.length === 1 ? this.lanes[0] : Promise.all(this.lanes).then(() => undefined);
  }
}
