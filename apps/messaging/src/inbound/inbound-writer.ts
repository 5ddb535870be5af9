import type { Logger } from '@gateway/logger';
import { GroupCommit, type Db } from '@gateway/store';
import type { CampaignInbound } from '../campaigns/inbound';
import type { SqlConversations, LoggedMessage } from '../store/conversations';
import type { MessageRepository, StatusOwner, StatusUpdateInput } from '../store/messages';

interface PendingStatus {
  update: StatusUpdateInput;
  owner?: StatusOwner;
}

interface PendingLog {
  messages: LoggedMessage[];
  stored: LoggedMessage[];
}

/**
 * The inbound router's writes in group commits, as the dispatcher's delivery records are: the status updates and
 * the logged messages of the webhooks handled at once (up to the consumer's concurrency) are written together,
 * the statuses in a few multi-row statements (the messages', then their campaign recipients'), the messages in one transaction, and each handler continues once
 * the batch holding its rows is committed, so a webhook is still acked only after its writes are durable (a
 * failed batch fails every handler in it: their webhooks are redelivered, and writing them again changes nothing).
 * Batches are written one after another, in arrival order.
 */
export class InboundWriter {
  private readonly statuses: GroupCommit<PendingStatus>;
  private readonly logs: GroupCommit<PendingLog>;

  constructor(
    messages: Pick<MessageRepository, 'recordStatuses'>,
    conversations: SqlConversations | undefined,
    db: Db | undefined,
    logger: Logger,
    /** Campaign recipients follow their messages' statuses: the batch's in a few statements, after the messages'. */
    campaigns?: Pick<CampaignInbound, 'applyStatuses'>,
  ) {
    this.statuses = new GroupCommit(
      async (batch) => {
        const updates = batch.map((p) => p.update);
        const owners = await messages.recordStatuses(updates);
        batch.forEach((p, i) => (p.owner = owners[i]));
        await campaigns?.applyStatuses(updates);
      },
      { maxBatch: 500, onError: (e, rows) => logger.error({ err: e, rows }, 'could not record status updates; their webhooks will be redelivered') },
    );
    this.logs = new GroupCommit(
      async (batch) => {
        const all = batch.flatMap((p) => p.messages);
        const store = (q?: Parameters<SqlConversations['storeLogged']>[1]) => conversations!.storeLogged(all, q);
        const stored = new Set(db ? await db.tx((q) => store(q)) : await store());
        for (const p of batch) p.stored = p.messages.filter((m) => stored.has(m));
      },
      { maxBatch: 200, onError: (e, rows) => logger.error({ err: e, rows }, 'could not log inbound messages; their webhooks will be redelivered') },
    );
  }

  /** Applies the updates (as `recordStatus`); answers each one's message owner, undefined for a message not known yet. */
  async recordStatuses(updates: StatusUpdateInput[]): Promise<Array<StatusOwner | undefined>> {
    const pending = updates.map((update): PendingStatus => ({ update }));
    await Promise.all(pending.map((p) => this.statuses.add(p)));
    return pending.map((p) => p.owner);
  }

  /** Stores the messages in their clients' logs (as `storeLogged`); answers those stored now (not seen before). */
  async storeLogged(messages: LoggedMessage[]): Promise<LoggedMessage[]> {
    const pending: PendingLog = { messages, stored: [] };
    await this.logs.add(pending);
    return pending.stored;
  }

  /** Writes what is waiting (at shutdown). */
  async flush(): Promise<void> {
    await Promise.all([this.statuses.flush(), this.logs.flush()]);
  }
}
