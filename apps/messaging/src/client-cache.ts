import type { tenantDirectory as td } from '@gateway/contracts';
import type { ServiceClient } from '@gateway/rpc';
import { LookupCache } from '@gateway/runtime';

type Credentials = td.GetClientCredentialsResponse;

/**
 * A client and its decrypted token, from the tenant directory, kept for a few seconds: a burst of sends for one
 * client costs one lookup. A change notice of the client (deactivated, new token) drops it at once; the TTL
 * is the fallback while notices are not arriving. Failed lookups (not found, unavailable) are never cached.
 */
export class ClientCredentialsCache {
  private readonly cache: LookupCache<string, Credentials>;
  /** clients this process is changing in the directory now (how many changes each), read afresh meanwhile */
  private readonly changing = new Map<string, number>();

  constructor(
    private readonly directory: ServiceClient<typeof td.TenantDirectoryService>,
    ttlMs = 5000,
  ) {
    this.cache = new LookupCache({ ttlMs });
  }

  drop(tenantId: string, clientId: string): void {
    this.cache.delete(`${tenantId}/${clientId}`);
  }

  clear(): void {
    this.cache.clear();
  }

  get(tenantId: string, clientId: string): Promise<Credentials> {
    const key = `${tenantId}/${clientId}`;
    const load = () => this.directory.getClientCredentials({ tenantId, clientId });
    if (this.changing.has(key)) return load();
    return this.cache.get(key, load);
  }

  /**
   * A change this process makes to the client in the directory (a provider's account update: a new messaging
   * limit, a restriction): from its start until it is answered, lookups of the client go to the directory
   * uncached, and its copy is dropped before and after, so a send that follows the change (seen committed
   * anywhere) never reads the copy from before it. The change notice does the same for the other replicas, as
   * soon as it reaches them.
   */
  async whileChanging<T>(tenantId: string, clientId: string, change: () => Promise<T>): Promise<T> {
    const key = `${tenantId}/${clientId}`;
    this.changing.set(key, (this.changing.get(key) ?? 0) + 1);
    this.cache.delete(key);
    try {
      return await change();
    } finally {
      this.cache.delete(key);
      const n = (this.changing.get(key) ?? 1) - 1;
      if (n > 0) this.changing.set(key, n);
      else this.changing.delete(key);
    }
  }
}
