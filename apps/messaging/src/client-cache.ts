import type { tenantDirectory as td } from '@gateway/contracts';
import type { ServiceClient } from '@gateway/rpc';

type Credentials = td.GetClientCredentialsResponse;

/**
 * A client and its decrypted token, from the tenant directory, kept for a few seconds: a burst of sends for one
 * client costs one lookup. A deactivated client or a replaced token is seen within the TTL. Failed lookups
 * (not found, unavailable) are never cached.
 */
export class ClientCredentialsCache {
  private readonly entries = new Map<string, { at: number; value: Promise<Credentials> }>();

  constructor(private readonly directory: ServiceClient<typeof td.TenantDirectoryService>, private readonly ttlMs = 5000) {}

  get(tenantId: string, clientId: string): Promise<Credentials> {
    const key = `${tenantId}/${clientId}`;
    const hit = this.entries.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value;
    // concurrent requests for the same client share one lookup
    const value = this.directory.getClientCredentials({ tenantId, clientId });
    if (this.entries.size > 10_000) this.entries.clear();
    this.entries.set(key, { at: Date.now(), value });
    value.catch(() => this.entries.delete(key));
    return value;
  }
}
