import type { Logger } from '@gateway/logger';
import type { DeliveryRepository, SeriesUpdate } from './store/deliveries';

/**
 * Group commit for delivery records: updates that arrive together are written in one statement, and each
 * caller's promise settles only once its row is committed, so a message is acked only after its record is
 * durable. Under load this turns thousands of single-row writes into a few multi-row ones; when idle a
 * write waits at most `maxDelayMs`.
 */
export class RecordWriter {
  private pending: Array<{ update: SeriesUpdate; resolve: () => void; reject: (e: unknown) => void }> = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly repo: DeliveryRepository, private readonly logger: Logger, private readonly opts: { maxBatch?: number; maxDelayMs?: number } = {}) {}

  write(update: SeriesUpdate): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ update, resolve, reject });
      if (this.pending.length >= (this.opts.maxBatch ?? 250)) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.opts.maxDelayMs ?? 2);
    });
  }

  /** Writes what is pending (batches are written one after another, in order). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (!batch.length) return this.flushing;
    this.flushing = this.flushing.then(async () => {
      try {
        await this.repo.apply(batch.map((b) => b.update));
        for (const b of batch) b.resolve();
      } catch (e) {
        this.logger.error({ err: e, rows: batch.length }, 'could not write delivery records; their messages will be redelivered');
        for (const b of batch) b.reject(e);
      }
    });
    return this.flushing;
  }
}
