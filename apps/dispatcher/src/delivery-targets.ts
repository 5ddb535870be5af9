import type { tenantDirectory as td } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import type { ServiceClient } from '@gateway/rpc';

export interface DeliveryTarget {
  tenantId: string;
  clientId: string;
  externalId: string | null;
  /** The client's webhook URL, else the tenant's; null when neither is set. */
  url: string | null;
  secret: string;
}

/**
 * Where a client's events go and the secret that signs them, from the tenant directory, cached for a few
 * seconds: a burst of events costs one lookup and a changed URL applies within the TTL.
 */
export class DeliveryTargets {
  private readonly cache = new Map<string, { at: number; target: DeliveryTarget | null }>();

  constructor(private readonly directory: ServiceClient<typeof td.TenantDirectoryService>, private readonly ttlMs = 3000) {}

  /** The target, or null when the client does not exist (any more). Other directory failures throw. */
  async get(clientId: string): Promise<DeliveryTarget | null> {
    const hit = this.cache.get(clientId);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.target;
    let target: DeliveryTarget | null;
    try {
      const r = await this.directory.getDeliveryTarget({ clientId });
      target = {
        tenantId: r.tenantId,
        clientId: r.clientId,
        externalId: r.externalId ?? null,
        url: r.clientWebhookUrl || r.tenantWebhookUrl || null,
        secret: r.webhookSecret,
      };
    } catch (e) {
      if (e instanceof AppError && e.kind === 'not_found') target = null;
      else throw e;
    }
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(clientId, { at: Date.now(), target });
    return target;
  }
}
