import { deterministicUuid } from '@gateway/crypto';
import { buildEvent } from '@gateway/events';
import { enqueueEvent, type OutboxRelay } from '@gateway/outbox';
import type { Queryable } from '@gateway/store';
import type { ClientCredentialsCache } from '../client-cache';
import { COUNT_NAMES, type CampaignRow, type Counts } from './store';

export type CampaignEventName = 'started' | 'paused' | 'resumed' | 'completed' | 'cancelled';

/**
 * The `campaign_status` events: written to the messaging service's outbox in the transaction of the campaign's
 * change, published by the relay once it commits, delivered like every other event.
 */
export class CampaignEvents {
  constructor(
    private readonly relay: OutboxRelay,
    private readonly credentials: ClientCredentialsCache,
  ) {}

  /** The client's external id, read before the transaction (the directory is another service). */
  async externalId(c: CampaignRow): Promise<string | null> {
    const { client } = await this.credentials.get(c.tenant_id, c.client_id).catch(() => ({ client: undefined }));
    return client?.externalId ?? null;
  }

  async enqueue(q: Queryable, c: CampaignRow, counts: Counts, event: CampaignEventName, externalId: string | null): Promise<void> {
    await enqueueEvent(
      q,
      buildEvent({
        type: 'campaign_status',
        tenantId: c.tenant_id,
        clientId: c.client_id,
        externalId,
        // one id per change: a campaign's change is written once
        id: deterministicUuid(c.id, event, new Date(c.updated_at).toISOString()),
        payload: { campaign_id: c.id, name: c.name, event, status: c.status, counts: Object.fromEntries(COUNT_NAMES.map((k) => [k, counts[k]])) },
      }),
    );
  }

  kick(): void {
    this.relay.kick();
  }
}
