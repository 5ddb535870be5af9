import { business } from '@gateway/contracts';
import { defineService } from '@gateway/rpc';
import type { Quotas } from './quotas';

/** The BusinessService of business.proto, served by the tenant-directory process. */
export function defineBusinessService(quotas: Quotas) {
  return defineService(business.BusinessService, {
    admit: async (r) => quotas.admit(r.tenantId, r.send, r.apiKeyPrefix),
    getQuotaUsage: async (r) => quotas.usage(r.tenantId),
  });
}
