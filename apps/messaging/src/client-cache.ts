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
    return this.cache.get(`${tenantId}/${clientId}`, () => this.directory.getClientCredentials({ tenantId, clientId }));
  }

  /**
   * A change this process makes to the client in the directory (a provider's account update: a new messaging
   * limit, a restriction): from its start until it is answered, lookups of the client go to the directory
   * uncached, and its copy is dropped before and after, so a send that follows the change (seen committed
   * anywhere) never reads the copy from before it. The change notice does the same for the other replicas, as
   * soon as it reaches them.
   */
  whileChanging<T>(tenantId: string, clientId: string, change: () => Promise<T>): Promise<T> {
    return this.cache.whileChanging(`${tenantId}/${clientId}`, change);
  }
}
