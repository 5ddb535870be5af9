import type { Logger } from '@gateway/logger';
import type { Db, Queryable } from '@gateway/store';
import { MessageWriter } from './message-writer';
import { insertAccepted, SqlMessageRepository, type MessageRepository, type NewMessage } from './messages';

/**
 * Messaging's one message store over its database: the repository (reads and status updates) and the writer
 * of accepted sends. The server builds it once and hands it to the idempotency runner, Messaging and the inbound
 * consumer.
 */
export class MessageStore {
  readonly repository: MessageRepository;

  private readonly writer: MessageWriter;

  constructor(
    private readonly db: Db,
    logger: Logger,
  ) {
    const repository = new SqlMessageRepository(db);
    this.repository = repository;
    this.writer = new MessageWriter(
      db,
      async (ids) => {
        for (const id of ids) await repository.applyEarlyStatuses(id);
      },
      logger,
    );
  }

  /** An accepted send with nothing to store beside it: joins the group commit of concurrent sends. */
  insert(m: NewMessage): Promise<void> {
    return this.writer.insert(m);
  }

  /**
   * An accepted send (if any) stored in one transaction with `beside` (the idempotency outcome); the status
   * updates that overtook the send are applied once that is committed (see recordStatus).
   */
  async insertWith(m: NewMessage | undefined, beside: (q: Queryable) => Promise<void>): Promise<void> {
    await this.db.tx(async (q) => {
      if (m) await insertAccepted(q, [m]);
      await beside(q);
    });
    if (m) await this.repository.applyEarlyStatuses(m.id);
  }

  /** Writes what is waiting in the group commit (at shutdown). */
  flush(): Promise<void> {
    return this.writer.flush();
  }
}
