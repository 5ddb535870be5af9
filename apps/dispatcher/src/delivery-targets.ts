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

type Entry = { at: number; value: Promise<DeliveryTarget | null>; refreshing?: boolean };

/**
 * Where a client's events go and the secret that signs them, from the tenant directory, cached: a burst of
 * events costs one lookup, and a changed URL applies within `ttlMs`. Concurrent misses share one call, and an
 * expired entry keeps serving while one background call refreshes it (up to `maxStaleMs`), so a busy client's
 * deliveries never all stop to wait for the directory at once.
 */
export class DeliveryTargets {
  private readonly cache = new Map<string, Entry>();

  constructor(private readonly directory: ServiceClient<typeof td.TenantDirectoryService>, private readonly ttlMs = 3000, private readonly maxStaleMs = 30_000) {}

  /** The target, or null when the client does not exist (any more). Other directory failures throw. */
  get(clientId: string): Promise<DeliveryTarget | null> {
    const hit = this.cache.get(clientId);
    const age = hit ? Date.now() - hit.at : Infinity;
    if (hit && age < this.ttlMs) return hit.value;
    if (hit && age < this.maxStaleMs) {
      if (!hit.refreshing) {
        hit.refreshing = true;
        const next = this.lookup(clientId);
        next.then(
          () => this.cache.set(clientId, { at: Date.now(), value: next }),
          () => (hit.refreshing = false),
        );
      }
      return hit.value;
    }
    const value = this.lookup(clientId);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(clientId, { at: Date.now(), value });
    value.catch(() => this.cache.delete(clientId));
    return value;
  }

  private async lookup(clientId: string): Promise<DeliveryTarget | null> {
    try {
      const r = await this.directory.getDeliveryTarget({ clientId });
      return {
        tenantId: r.tenantId,
        clientId: r.clientId,
        externalId: r.externalId ?? null,
        url: r.clientWebhookUrl || r.tenantWebhookUrl || null,
        secret: r.webhookSecret,
      };
    } catch (e) {
      if (e instanceof AppError && e.kind === 'not_found') return null;
      throw e;
    }
  }
}
