import type { Logger } from '@gateway/logger';
import { GroupCommit } from '@gateway/store';
import type { DeliveryRepository, SeriesUpdate } from './store/deliveries';

/**
 * Delivery records written in group commits: a message is acked only after its record is durable, and under
 * load thousands of single-row writes become a few multi-row upserts.
 */
export class RecordWriter {
  private readonly commits: GroupCommit<SeriesUpdate>;

  constructor(repo: DeliveryRepository, logger: Logger) {
    this.commits = new GroupCommit((updates) => repo.apply(updates), {
      maxBatch: 250,
      onError: (e, rows) => logger.error({ err: e, rows }, 'could not write delivery records; their messages will be redelivered'),
    });
  }

  write(update: SeriesUpdate): Promise<void> {
    return this.commits.add(update);
  }

  flush(): Promise<void> {
    return this.commits.flush();
  }
}
