/**
 * Group commit: items that arrive together are written by one call of `write`, and each caller's promise
 * settles once the batch holding its item is written (or fails with it). Under load thousands of single-row
 * writes become a few multi-row ones; when idle an item waits at most `maxDelayMs`. Batches are written one
 * after another, in arrival order.
 */
export class GroupCommit<T> {
  private pending: Array<{ item: T; resolve: () => void; reject: (e: unknown) => void }> = [];
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly opts: { maxBatch?: number; maxDelayMs?: number; onError?: (e: unknown, size: number) => void } = {},
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.pending.length >= (this.opts.maxBatch ?? 250)) void this.flush();
      else this.timer ??= setTimeout(() => void this.flush(), this.opts.maxDelayMs ?? 2);
    });
  }

  /** Writes what is waiting (at shutdown, or to bound latency); resolves once every batch so far is written. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (!batch.length) return this.chain;
    this.chain = this.chain.then(async () => {
      try {
        await this.write(batch.map((b) => b.item));
        for (const b of batch) b.resolve();
      } catch (e) {
        this.opts.onError?.(e, batch.length);
        for (const b of batch) b.reject(e);
      }
    });
    return this.chain;
  }
}
