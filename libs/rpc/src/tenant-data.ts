import { business } from '@gateway/contracts';
import { defineService } from './server';

/**
 * TenantDataService (business.proto), as every service that stores a tenant's data serves it: `erase` removes
 * every row of the service's own tables mentioning one of the ids (`eraseRowsMentioning` of @gateway/store),
 * given the tenant's id and its clients' ids, plus what `moreIds` adds (ids the service knows are the tenant's).
 */
export function defineTenantDataService(erase: (ids: string[]) => Promise<number>, moreIds?: (tenantId: string) => Promise<string[]>) {
  return defineService(business.TenantDataService, {
    eraseTenant: async (r) => ({ rows: BigInt(await erase([r.tenantId, ...r.clientIds, ...((await moreIds?.(r.tenantId)) ?? [])])) }),
  });
}
