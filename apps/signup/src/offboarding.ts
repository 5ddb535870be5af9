import type { business as b, tenantDirectory as td } from '@gateway/contracts';
import type { Logger } from '@gateway/logger';
import type { ProviderClient } from '@gateway/provider-client';
import type { ServiceClient } from '@gateway/rpc';

/** The provider operations a client's departure needs. */
export type OffboardingProvider = Pick<ProviderClient, 'deregisterPhone' | 'unsubscribeApp'>;

/**
 * DELETE /api/clients/{id} (issue 28): the number is deregistered at the provider, the app unsubscribed from the
 * business account unless another client of the gateway still uses that account, and only then is the client
 * removed from the directory (its encrypted token with it). A provider refusal answers as such and removes
 * nothing, so the tenant may repeat the delete. A client that never finished signup has nothing at the provider.
 */
export class Offboarding {
  constructor(
    private readonly directory: ServiceClient<typeof td.TenantDirectoryService>,
    private readonly business: ServiceClient<typeof b.BusinessService>,
    private readonly provider: OffboardingProvider,
    private readonly logger: Logger,
  ) {}

  async deleteClient(tenantId: string, clientId: string): Promise<{ deregistered: boolean; unsubscribed: boolean }> {
    const { client, accessToken } = await this.directory.getClientCredentials({ tenantId, clientId });
    let deregistered = false;
    let unsubscribed = false;
    if (client && accessToken && client.phoneNumberId) {
      await this.provider.deregisterPhone(accessToken, client.phoneNumberId);
      deregistered = true;
    }
    if (client && accessToken && client.businessAccountId) {
      const sharing = (await this.directory.findClientsByBusinessAccountId({ businessAccountId: client.businessAccountId })).clients.filter(
        (c) => c.id !== clientId,
      );
      if (!sharing.length) {
        await this.provider.unsubscribeApp(accessToken, client.businessAccountId);
        unsubscribed = true;
      }
    }
    await this.business.removeClient({ tenantId, clientId });
    this.logger.info({ tenantId, clientId, deregistered, unsubscribed }, 'client deleted');
    return { deregistered, unsubscribed };
  }
}
