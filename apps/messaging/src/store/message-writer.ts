import type { Logger } from '@gateway/logger';
import { GroupCommit, type Db, type Queryable } from '@gateway/store';
import { insertAccepted, INSERT_ROWS, type NewMessage, type WriteBefore } from './messages';

/**
 * The contacts of sends about to be stored (store/conversations.ts `contactsForSends`: made when new, moved
 * forward to their latest send), in the transaction it is given: message id → contact id.
 */
export type LinkSends = (q: Queryable, batch: NewMessage[]) => Promise<Map<string, string>>;

/**
 * The contacts of sends about to be stored when all are known already (`knownContactsForSends`): each send's
 * contact and the write that moves them, made by the sends' INSERT itself; undefined when some need more.
 */
export type KnownLinks = (batch: NewMessage[]) => Promise<{ contacts: Map<string, string>; moveContacts: WriteBefore } | undefined>;

interface Pending {
  message: NewMessage;
  /** Set once written: the contact the send joined, if it was linked. */
  contactId?: string;
}

/**
 * Group commit for accepted sends without an idempotency key: sends that finish together are stored in one
 * multi-row INSERT and (when given `link`) join their contacts' conversations in the same transaction: one commit
 * per batch, where a commit per send serialised every send to one contact on its row. Then the status updates
 * that overtook any of them are applied. Each caller waits for its batch (at most a few ms when
 * idle), so an answered send is a stored send; a failure to link is logged and never fails the sends.
 */
export class MessageWriter {
  private readonly commits: GroupCommit<Pending>;

  constructor(
    private readonly db: Db,
    private readonly applyEarly: (ids: string[]) => Promise<void>,
    private readonly logger: Logger,
    private readonly link?: LinkSends,
    private readonly known?: KnownLinks,
  ) {
    this.commits = new GroupCommit((batch) => this.write(batch), {
      maxBatch: 200,
      // sends' batches are independent: one may be written while another waits for its commit
      lanes: 4,
      onError: (e, rows) => logger.error({ err: e, rows }, 'could not store accepted sends'),
    });
  }

  /** Resolves once the send is stored, with the contact it joined (when linked). */
  async insert(m: NewMessage): Promise<string | undefined> {
    const pending: Pending = { message: m };
    await this.commits.add(pending);
    return pending.contactId;
  }

  flush(): Promise<void> {
    return this.commits.flush();
  }

  /**
   * Sends already gathered by the caller (a campaign's batch): stored and linked at once, outside the group
   * commit; answers the contact each joined.
   */
  async insertMany(messages: NewMessage[]): Promise<Map<string, string | undefined>> {
    const batch: Pending[] = messages.map((message) => ({ message }));
    if (batch.length) await this.write(batch);
    return new Map(batch.map((p) => [p.message.id, p.contactId]));
  }

  private async write(batch: Pending[]): Promise<void> {
    const messages = batch.map((p) => p.message);
    // one commit for the batch and its links: the contacts first, then the sends with their contacts, each row
    // written once. A failure to link never loses a send: the transaction is then written again without links (a
    // savepoint around the links instead cost two more statements per batch, every time)
    let linked: Map<string, string> | undefined;
    try {
      // every contact known (nearly every batch once a business's users have written): their identities read,
      // then one statement moves the contacts and stores the sends, atomic by itself, without BEGIN and COMMIT
      const known = this.known && messages.length <= INSERT_ROWS ? await this.known(messages) : undefined;
      if (known) {
        await insertAccepted(this.db, messages, known.contacts, known.moveContacts);
        linked = known.contacts;
      } else {
        linked = await this.db.tx(async (q) => {
          const contacts = this.link ? await this.link(q, messages) : undefined;
          await insertAccepted(q, messages, contacts);
          return contacts;
        });
      }
    } catch (e) {
      if (!this.link) throw e;
      this.logger.warn({ err: e, rows: batch.length }, 'could not link sends to their contacts');
      await this.db.tx((q) => insertAccepted(q, messages));
      linked = undefined;
    }
    for (const p of batch) p.contactId = linked?.get(p.message.id);
    // committed: now no overtaking status update can slip past (see recordStatus)
    const early = await this.db.query<{ message_id: string }>('SELECT DISTINCT message_id FROM early_statuses WHERE message_id = ANY($1::text[])', [
      messages.map((m) => m.id),
    ]);
    if (early.length) await this.applyEarly(early.map((e) => e.message_id));
  }
}
