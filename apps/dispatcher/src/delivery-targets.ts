import type { tenantDirectory as td } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import type { ServiceClient } from '@gateway/rpc';
import { LookupCache } from '@gateway/runtime';

export interface DeliveryTarget {
  tenantId: string;
  clientId: string;
  externalId: string | null;
  /** The client's webhook URL, else the tenant's; null when neither is set. */
  url: string | null;
  /** The tenant's current secret: it keys X-Signature-256 and the first webhook-signature entry. */
  secret: string;
  /** The secret before the last rotation, until it expires: a second webhook-signature entry meanwhile. */
  previous?: { secret: string; expiresAt: number };
  /** Event types the client's webhook receives; empty: every type. */
  events: string[];
  /** Set when the client's webhook is disabled (gone, or failing for too long): why. */
  disabledReason: string | null;
  /** The tenant is suspended: its events are held (recorded `skipped`, replayed on resume). */
  suspended?: boolean;
}

/** The secrets that sign a delivery at `now`: the current one first, then the previous one while it lives. */
export function liveSecrets(t: DeliveryTarget, now = Date.now()): string[] {
  return t.previous && t.previous.expiresAt > now ? [t.secret, t.previous.secret] : [t.secret];
}

/**
 * Where a client's events go and the secret that signs them, from the tenant directory, cached: a burst of
 * events costs one lookup. A change notice (URL, secret, filter, webhook status) drops the entry at once;
 * otherwise a change applies within `ttlMs` (the fallback while notices are not arriving). Concurrent misses
 * share one call, and an expired entry keeps serving while one background call refreshes it (up to
 * `maxStaleMs`), so a busy client's deliveries never all stop to wait for the directory at once.
 */
export class DeliveryTargets {
  private readonly cache: LookupCache<string, DeliveryTarget | null>;

  constructor(
    private readonly directory: ServiceClient<typeof td.TenantDirectoryService>,
    ttlMs = 3000,
    maxStaleMs = 30_000,
  ) {
    this.cache = new LookupCache({ ttlMs, staleMs: maxStaleMs });
  }

  dropClient(clientId: string): void {
    this.cache.delete(clientId);
  }

  dropTenant(tenantId: string): void {
    this.cache.deleteWhere((_id, t) => t?.tenantId === tenantId);
  }

  clear(): void {
    this.cache.clear();
  }

  /**
   * A change this process asks the directory for (disabling a client's webhook after a 410 or a failing period):
   * until it is answered the client's target is read afresh, and dropped after, so the next event seen after the
   * change is skipped here even before the change notice comes back (LookupCache.whileChanging).
   */
  whileChanging<T>(clientId: string, change: () => Promise<T>): Promise<T> {
    return this.cache.whileChanging(clientId, change);
  }

  /** The target, or null when the client does not exist (any more). Other directory failures throw. */
  get(clientId: string): Promise<DeliveryTarget | null> {
    return this.cache.get(clientId, () => this.lookup(clientId));
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
        ...(r.previousWebhookSecret && r.previousSecretExpiresAt
          ? { previous: { secret: r.previousWebhookSecret, expiresAt: Date.parse(r.previousSecretExpiresAt) } }
          : {}),
        events: r.webhookEvents,
        disabledReason: r.webhookStatus === 'disabled' ? (r.webhookDisabledReason ?? 'disabled') : null,
        suspended: r.tenantSuspended,
      };
    } catch (e) {
      if (e instanceof AppError && e.kind === 'not_found') return null;
      throw e;
    }
  }
}
