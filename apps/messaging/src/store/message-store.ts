import type { Logger } from '@gateway/logger';
import type { Db, Queryable } from '@gateway/store';
import { MessageWriter } from './message-writer';
import { insertAccepted, SqlMessageRepository, type MessageRepository, type NewMessage } from './messages';
import type { Clock } from '../clock';
import type { LiveUpdates } from '../live';
import type { SqlConversations } from './conversations';

/** What follows a stored send (issue 27): its time from the service's clock, its contact, the live stream. */
export interface SendLog {
  clock: Clock;
  conversations: SqlConversations;
  live: LiveUpdates;
}

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
    private readonly logger: Logger,
    private readonly log?: SendLog,
  ) {
    const repository = new SqlMessageRepository(db);
    this.repository = repository;
    this.writer = new MessageWriter(
      db,
      async (ids) => {
        for (const id of ids) await repository.applyEarlyStatuses(id);
      },
      logger,
      log && ((q, batch) => log.conversations.contactsForSends(batch, q)),
      log && ((batch) => log.conversations.knownContactsForSends(batch)),
    );
  }

  /** An accepted send with nothing to store beside it: joins the group commit of concurrent sends. */
  async insert(m: NewMessage): Promise<void> {
    const sent = this.stamped(m);
    // linked to its contact in the group commit
    const contactId = await this.writer.insert(sent);
    if (this.log) this.told(sent, contactId ?? null);
  }

  /** Accepted sends gathered by the caller (a campaign's batch): one INSERT with their contacts, in one commit. */
  async insertMany(ms: NewMessage[]): Promise<void> {
    const sent = ms.map((m) => this.stamped(m));
    const contacts = await this.writer.insertMany(sent);
    if (this.log) for (const m of sent) this.told(m, contacts.get(m.id) ?? null);
  }

  private stamped(m: NewMessage): NewMessage {
    return this.log && !m.at ? { ...m, at: this.log.clock.now() } : m;
  }

  /** A stored send joins its contact's conversation and is told to the live stream; a failure here never fails the send. */
  private async logged(m: NewMessage): Promise<void> {
    if (!this.log) return;
    try {
      const contacts = await this.log.conversations.linkSends([m]);
      this.told(m, contacts.get(m.id) ?? null);
    } catch (e) {
      this.logger.warn({ err: e, message_id: m.id }, 'could not link a send to its contact');
    }
  }

  /** Told without waiting for the bus: the answer to the send does not wait for the live stream. */
  private told(m: NewMessage, contactId: string | null): void {
    this.log!.live.tell(m.tenantId, m.clientId, {
      type: 'message',
      message_id: m.id,
      contact_id: contactId,
      direction: 'out',
      status: 'accepted',
    });
  }

  /**
   * An accepted send (if any) stored in one transaction with `beside` (the idempotency outcome); the status
   * updates that overtook the send are applied once that is committed (see recordStatus).
   */
  async insertWith(given: NewMessage | undefined, beside: (q: Queryable) => Promise<void>): Promise<void> {
    const m = given && this.stamped(given);
    await this.db.tx(async (q) => {
      if (m) await insertAccepted(q, [m]);
      await beside(q);
    });
    if (m) await this.repository.applyEarlyStatuses(m.id);
    if (m) await this.logged(m);
  }

  /** Writes what is waiting in the group commit (at shutdown). */
  flush(): Promise<void> {
    return this.writer.flush();
  }
}
