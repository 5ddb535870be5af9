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
}
