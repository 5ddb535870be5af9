import type { MessageInitShape } from '@bufbuild/protobuf';
import type { signup as s, tenantDirectory as td } from '@gateway/contracts';
import type { SessionRow } from './store/repository';

/** The provider settings the hosted page launches embedded signup with. */
export interface PageSettings {
  appId: string;
  configId: string;
  sdkUrl: string;
  providerOrigins: string[];
  apiVersion: string;
}

export function sessionInit(r: SessionRow): MessageInitShape<typeof s.SignupSessionSchema> {
  return {
    id: r.id,
    clientId: r.client_id,
    tenantId: r.tenant_id,
    status: r.status,
    failureReason: r.failure_reason ?? undefined,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
    completedAt: r.completed_at?.toISOString(),
    expiresAt: r.expires_at.toISOString(),
  };
}

export function pageInit(settings: PageSettings, client: td.Client): MessageInitShape<typeof s.PageConfigSchema> {
  return {
    appId: settings.appId,
    configId: settings.configId,
    sdkUrl: settings.sdkUrl,
    providerOrigins: settings.providerOrigins,
    apiVersion: settings.apiVersion,
    successRedirectUrl: client.successRedirectUrl,
    failureRedirectUrl: client.failureRedirectUrl,
    displayName: client.displayName,
  };
}
