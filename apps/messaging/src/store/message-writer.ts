import type { Logger } from '@gateway/logger';
import { GroupCommit, type Db } from '@gateway/store';
import { insertAccepted, type NewMessage } from './messages';

/**
 * Group commit for accepted sends without an idempotency key: sends that finish together are stored in one
 * multi-row INSERT, then the status updates that overtook any of them are applied. Each caller waits for its
 * batch (at most a few ms when idle), so an answered send is a stored send.
 */
export class MessageWriter {
  private readonly commits: GroupCommit<NewMessage>;

  constructor(
    private readonly db: Db,
    private readonly applyEarly: (ids: string[]) => Promise<void>,
    logger: Logger,
  ) {
    this.commits = new GroupCommit((batch) => this.write(batch), {
      maxBatch: 200,
      onError: (e, rows) => logger.error({ err: e, rows }, 'could not store accepted sends'),
    });
  }

  insert(m: NewMessage): Promise<void> {
    return this.commits.add(m);
  }

  flush(): Promise<void> {
    return this.commits.flush();
  }

  private async write(batch: NewMessage[]): Promise<void> {
    await insertAccepted(this.db, batch);
    // committed (autocommit): now no overtaking status update can slip past (see recordStatus)
    const early = await this.db.query<{ message_id: string }>('SELECT DISTINCT message_id FROM early_statuses WHERE message_id = ANY($1::text[])', [
      batch.map((m) => m.id),
    ]);
    if (early.length) await this.applyEarly(early.map((e) => e.message_id));
  }
}
