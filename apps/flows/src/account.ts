import { AppError } from '@gateway/errors';
import type { flows as f, tenantDirectory as td } from '@gateway/contracts';
import type { ServiceClient } from '@gateway/rpc';

/** The client a flow operation acts for: its business account (which owns the flows) and provider token. */
export interface Account {
  tenantId: string;
  clientId: string;
  wabaId: string;
  token: string;
}

/**
 * Resolves the caller's client through the tenant directory: another tenant's client is not found (the
 * directory answers so); a client without its business account (pending signup) has no flows yet.
 */
export async function resolveAccount(directory: ServiceClient<typeof td.TenantDirectoryService>, caller: f.FlowCaller | undefined): Promise<Account> {
  if (!caller?.tenantId || !caller.clientId) throw new AppError('internal', 'caller_missing', 'tenant_id and client_id are required');
  const { client, accessToken } = await directory.getClientCredentials({ tenantId: caller.tenantId, clientId: caller.clientId });
  if (!client) throw AppError.notFound('client_not_found', 'Client not found');
  if (!client.isActive || !client.businessAccountId || !accessToken) {
    throw AppError.conflict('client_not_active', `Client is not active (signup_status: ${client.signupStatus}); finish its signup before managing flows`, {
      signup_status: client.signupStatus,
    });
  }
  return { tenantId: client.tenantId, clientId: client.id, wabaId: client.businessAccountId, token: accessToken };
}
