import { business } from '@gateway/contracts';
import { defineService } from '@gateway/rpc';
import type { Clients } from '../clients';
import type { AuditLog } from './audit';
import type { Quotas } from './quotas';
import type { TenantAdmin } from './tenant-admin';

/** The BusinessService of business.proto, served by the tenant-directory process. */
export function defineBusinessService(quotas: Quotas, admin: TenantAdmin, clients: Clients, audit: AuditLog) {
  return defineService(business.BusinessService, {
    admit: async (r) => quotas.admit(r.tenantId, r.send, r.apiKeyPrefix, r.campaign),
    getQuotaUsage: async (r) => quotas.usage(r.tenantId),
    listTenants: async (r) => admin.list(r),
    updateTenant: async (r) => admin.update(r),
    suspendTenant: async (r) => admin.suspend(r.tenantId),
    resumeTenant: async (r) => admin.resume(r.tenantId),
    recordAudit: async (r) => {
      if (r.entry) await audit.record(r.entry);
      return {};
    },
    listAuditLog: async (r) => audit.list(r),
    removeClient: async (r) => {
      await clients.remove(r.tenantId, r.clientId);
      return {};
    },
  });
}
