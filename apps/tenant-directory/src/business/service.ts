import type { MessageInitShape } from '@bufbuild/protobuf';
import { business } from '@gateway/contracts';
import { toAppError } from '@gateway/errors';
import type { Logger } from '@gateway/logger';
import { defineService, toCallError } from '@gateway/rpc';
import type { Clients } from '../clients';
import type { AuditLog } from './audit';
import type { Quotas } from './quotas';
import type { TenantAdmin } from './tenant-admin';

type AdmissionInit = MessageInitShape<typeof business.AdmissionSchema>;

/**
 * An admission's error in its place in `AdmitAndAudit`'s answer, as a failed `Admit` call carries it (an internal
 * error is logged here and its message not sent, as the gRPC server does for a failed call).
 */
function callError(e: unknown, logger: Logger): AdmissionInit {
  const err = toAppError(e);
  if (err.kind === 'internal') logger.error({ err: e, method: 'BusinessService/AdmitAndAudit' }, 'admission failed');
  return { outcome: { case: 'error', value: toCallError(err) } };
}

/** The BusinessService of business.proto, served by the tenant-directory process. */
export function defineBusinessService(quotas: Quotas, admin: TenantAdmin, clients: Clients, audit: AuditLog, logger: Logger) {
  return defineService(business.BusinessService, {
    admit: async (r) => quotas.admit(r.tenantId, r.send, r.apiKeyPrefix, r.campaign),
    // the edge's admissions and audit entries of requests that arrived together: the admissions join the quota
    // batches of their tenants and the entries the audit log's group commit, as single calls would
    admitAndAudit: async (r) => {
      const admissions = Promise.all(
        r.admits.map((a) =>
          quotas.admit(a.tenantId, a.send, a.apiKeyPrefix, a.campaign).then(
            (value): AdmissionInit => ({ outcome: { case: 'admitted', value } }),
            (e: unknown) => callError(e, logger),
          ),
        ),
      );
      const entryErrors = Promise.all(
        r.entries.map((e) =>
          audit.record(e).then(
            () => '',
            (err: unknown) => {
              logger.error({ err, action: e.action }, 'audit entry not recorded');
              return (err as Error)?.message || 'not recorded';
            },
          ),
        ),
      );
      return { admissions: await admissions, entryErrors: await entryErrors };
    },
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
