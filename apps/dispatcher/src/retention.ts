import type { Logger } from '@gateway/logger';
import type { Queryable } from '@gateway/store';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What retention counts from: the system time, moved forward by a test (`advance`) to make records old without waiting. */
export class RetentionClock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/**
 * Prunes delivery records older than DELIVERY_RETENTION_DAYS (issue 27), hourly, in small batches: one short
 * DELETE each with a pause between, so deliveries being written never wait behind it (docs/conversations.md).
 */
export class DeliveryRetention {
  constructor(
    private readonly q: Queryable,
    readonly clock: RetentionClock,
    private readonly days: number,
    private readonly logger: Logger,
    private readonly batch = 500,
  ) {}

  async sweep(): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - this.days * DAY_MS);
    let total = 0;
    for (;;) {
      const rows = await this.q.query('DELETE FROM deliveries WHERE id IN (SELECT id FROM deliveries WHERE created_at < $1 LIMIT $2) RETURNING id', [
        cutoff,
        this.batch,
      ]);
      total += rows.length;
      if (rows.length < this.batch) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    if (total) this.logger.info({ deliveries: total, cutoff }, 'pruned delivery records past retention');
    return total;
  }
}
