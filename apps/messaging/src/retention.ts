import type { Logger } from '@gateway/logger';
import type { Clock } from './clock';
import type { SqlConversations } from './store/conversations';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Prunes messages older than MESSAGE_RETENTION_DAYS, and contacts without activity for as long, in small
 * batches (one short DELETE each, a pause between them): sends and ingest never wait behind it
 * (docs/conversations.md, "Retention").
 */
export class MessageRetention {
  constructor(
    private readonly store: SqlConversations,
    private readonly clock: Clock,
    private readonly days: number,
    private readonly logger: Logger,
    private readonly batch = 500,
  ) {}

  /** One sweep: batches until nothing older than the setting is left. */
  async sweep(): Promise<{ messages: number; contacts: number }> {
    const cutoff = new Date(this.clock.now().getTime() - this.days * DAY_MS);
    const total = { messages: 0, contacts: 0 };
    for (;;) {
      const n = await this.store.pruneBatch(cutoff, this.batch);
      total.messages += n.messages;
      total.contacts += n.contacts;
      if (n.messages < this.batch && n.contacts < this.batch) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    if (total.messages || total.contacts) this.logger.info({ ...total, cutoff }, 'pruned messages past retention');
    return total;
  }
}
