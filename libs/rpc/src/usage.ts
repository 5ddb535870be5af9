import { business } from '@gateway/contracts';
import { defineService } from './server';

/**
 * UsageService (business.proto), served by a service over its own table: `count` answers rows of the tenant
 * per UTC day and key (a send's pricing category, a delivery's status) in [from, to], of one client when it is named.
 */
export function defineUsageService(
  count: (tenantId: string, from: string, to: string, clientId: string | null) => Promise<Array<{ day: string; key: string; count: number }>>,
) {
  return defineService(business.UsageService, {
    countByDay: async (r) => ({
      counts: (await count(r.tenantId, r.from, r.to, r.clientId || null)).map((c) => ({ day: c.day, key: c.key, count: BigInt(c.count) })),
    }),
  });
}
