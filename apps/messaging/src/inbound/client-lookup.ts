import type { tenantDirectory as td } from '@gateway/contracts';
import type { ServiceClient } from '@gateway/rpc';
import { LookupCache } from '@gateway/runtime';
import type { ChangeTarget } from './split';

export interface RoutedClient {
  id: string;
  tenantId: string;
  externalId: string | null;
  /** The client's stop keywords (campaign opt-outs); empty or absent: the defaults (a directory before them sends none). */
  stopKeywords?: string[];
}

/**
 * Clients by phone number id or business account id, from the tenant directory, cached briefly: a burst of
 * updates for one number costs one lookup. Empty answers are cached for less time, so a client registered
 * moments ago is found soon.
 */
export class ClientLookup {
  private readonly cache: LookupCache<string, RoutedClient[]>;

  constructor(
    private readonly directory: ServiceClient<typeof td.TenantDirectoryService>,
    ttlMs = 30_000,
    emptyTtlMs = 2_000,
  ) {
    this.cache = new LookupCache({ ttlMs: (clients) => (clients.length ? ttlMs : emptyTtlMs) });
  }

  /** A client changed (a change notice): its routes, and any answer that lists it, are looked up again. */
  drop(clientId: string, phoneNumberIds: string[] = [], businessAccountIds: string[] = []): void {
    for (const id of phoneNumberIds) this.cache.delete(`pn:${id}`);
    for (const id of businessAccountIds) this.cache.delete(`waba:${id}`);
    this.cache.deleteWhere((_key, clients) => clients.some((c) => c.id === clientId));
  }

  clear(): void {
    this.cache.clear();
  }

  static key(t: ChangeTarget): string {
    return 'phoneNumberId' in t ? `pn:${t.phoneNumberId}` : `waba:${t.businessAccountId}`;
  }

  /** Resolves every distinct target once; directory failures throw (the inbound message is redelivered). */
  async resolve(targets: ChangeTarget[]): Promise<Map<string, RoutedClient[]>> {
    const out = new Map<string, RoutedClient[]>();
    for (const t of targets) {
      const key = ClientLookup.key(t);
      if (!out.has(key)) out.set(key, await this.lookup(key, t));
    }
    return out;
  }

  private lookup(key: string, t: ChangeTarget): Promise<RoutedClient[]> {
    return this.cache.get(key, async () => {
      const res =
        'phoneNumberId' in t
          ? await this.directory.findClientsByPhoneNumberId({ phoneNumberId: t.phoneNumberId })
          : await this.directory.findClientsByBusinessAccountId({ businessAccountId: t.businessAccountId });
      return res.clients.map((c) => ({ id: c.id, tenantId: c.tenantId, externalId: c.externalId ?? null, stopKeywords: c.stopKeywords }));
    });
  }
}
