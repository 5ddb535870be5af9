import type { Logger } from '@gateway/logger';
import type { Db } from '@gateway/store';
import type { NewMessage } from './messages';

/**
 * Group commit for accepted sends without an idempotency key: sends that finish together are stored in one
 * multi-row INSERT, then the status updates that overtook any of them are applied. Each caller waits for its
 * batch (at most `maxDelayMs` when idle), so an answered send is a stored send.
 */
export class MessageWriter {
  private pending: Array<{ m: NewMessage; done: (e?: unknown) => void }> = [];
  private timer: NodeJS.Timeout | undefined;
  private chain: Promise<void> = Promise.resolve();

  constructor(private readonly db: Db, private readonly applyEarly: (ids: string[]) => Promise<void>, private readonly logger: Logger, private readonly opts: { maxBatch?: number; maxDelayMs?: number } = {}) {}

  insert(m: NewMessage): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ m, done: (e) => (e ? reject(e) : resolve()) });
      if (this.pending.length >= (this.opts.maxBatch ?? 200)) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.opts.maxDelayMs ?? 2);
    });
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.pending;
    this.pending = [];
    if (!batch.length) return this.chain;
    this.chain = this.chain.then(async () => {
      try {
        const params: unknown[] = [];
        const rows = batch.map(({ m }, i) => {
          const at = m.at ?? new Date();
          params.push(m.id, m.tenantId, m.clientId, m.to, m.kind, JSON.stringify([{ status: 'accepted', at: at.toISOString() }]), at);
          const b = i * 7;
          return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, 'accepted', $${b + 6}::jsonb, $${b + 7}::timestamptz, $${b + 7}::timestamptz)`;
        });
        await this.db.query(
          `INSERT INTO messages (id, tenant_id, client_id, to_number, kind, status, status_history, created_at, updated_at) VALUES ${rows.join(', ')} ON CONFLICT (id) DO NOTHING`,
          params,
        );
        // committed (autocommit): now no overtaking status update can slip past (see recordStatus)
        const early = await this.db.query<{ message_id: string }>('SELECT DISTINCT message_id FROM early_statuses WHERE message_id = ANY($1::text[])', [batch.map((b) => b.m.id)]);
        if (early.length) await this.applyEarly(early.map((e) => e.message_id));
        for (const b of batch) b.done();
      } catch (e) {
        this.logger.error({ err: e, rows: batch.length }, 'could not store accepted sends');
        for (const b of batch) b.done(e);
      }
    });
    return this.chain;
  }
}
