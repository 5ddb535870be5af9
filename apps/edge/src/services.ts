import { business, calls, campaigns, conversations, dispatcher, flows, messaging, signup, templates, tenantDirectory } from '@gateway/contracts';
import { createServiceClient, type ServiceClient } from '@gateway/rpc';
import type { Logger } from '@gateway/logger';
import type { EdgeConfig } from './config';
import { SendCalls } from './send-calls';

/** gRPC clients of the backing services; each service owns its data, the edge only asks. */
export interface Services {
  directory: ServiceClient<typeof tenantDirectory.TenantDirectoryService>;
  messaging: ServiceClient<typeof messaging.MessagingService>;
  /** Sends through the messaging service, those of requests that arrive together in one call (send-calls.ts). */
  sends: SendCalls;
  dispatcher: ServiceClient<typeof dispatcher.DispatcherService>;
  signup: ServiceClient<typeof signup.SignupService>;
  flows: ServiceClient<typeof flows.FlowsService>;
  /** Served by the messaging process, which owns the template copy. */
  templates: ServiceClient<typeof templates.TemplatesService>;
  /** The message log, contacts and conversations: served by the messaging process, which owns the messages. */
  conversations: ServiceClient<typeof conversations.ConversationsService>;
  /** Served by the messaging process, which owns the call records. */
  calls: ServiceClient<typeof calls.CallsService>;
  /** Plans, quotas, tenant lifecycle and the audit log: served by the tenant-directory process. */
  business: ServiceClient<typeof business.BusinessService>;
  /** Every service storing a tenant's data, by name: each erases a deleted tenant's rows (the directory last). */
  tenantData: Record<string, ServiceClient<typeof business.TenantDataService>>;
  /** A client's departure (deregistration at the provider): served by the signup process. */
  clientLifecycle: ServiceClient<typeof business.ClientLifecycleService>;
  /** GET /api/usage: sends per day (messaging) and deliveries per day (dispatcher). */
  sendCounts: ServiceClient<typeof business.UsageService>;
  deliveryCounts: ServiceClient<typeof business.UsageService>;
  /** Served by the messaging process, which owns the campaign tables and the opt-out lists. */
  campaigns: ServiceClient<typeof campaigns.CampaignsService>;
}

export function connectServices(config: EdgeConfig, logger: Logger): Services {
  const messagingClient = createServiceClient(messaging.MessagingService, config.messagingAddr, { defaultDeadlineMs: 60_000 });
  return {
    directory: createServiceClient(tenantDirectory.TenantDirectoryService, config.tenantDirectoryAddr, { defaultDeadlineMs: 10_000 }),
    // a send may wait for the provider (PROVIDER_TIMEOUT_MS, one safe retry): the messaging service answers
    // 504 itself long before this deadline
    messaging: messagingClient,
    sends: new SendCalls(messagingClient, logger),
    dispatcher: createServiceClient(dispatcher.DispatcherService, config.dispatcherAddr, { defaultDeadlineMs: 10_000 }),
    // completing a signup makes up to four provider calls (each PROVIDER_TIMEOUT_MS, safe ones retried once)
    signup: createServiceClient(signup.SignupService, config.signupAddr, { defaultDeadlineMs: 90_000 }),
    // a flow operation makes a few provider calls (refresh, the change, a refresh after a refusal), each
    // bounded by PROVIDER_TIMEOUT_MS
    flows: createServiceClient(flows.FlowsService, config.flowsAddr, { defaultDeadlineMs: 60_000 }),
    // a sync pages through the provider's list (each page PROVIDER_TIMEOUT_MS)
    templates: createServiceClient(templates.TemplatesService, config.messagingAddr, { defaultDeadlineMs: 60_000 }),
    conversations: createServiceClient(conversations.ConversationsService, config.messagingAddr, { defaultDeadlineMs: 10_000 }),
    // a call action waits for the provider (PROVIDER_TIMEOUT_MS, never retried)
    calls: createServiceClient(calls.CallsService, config.messagingAddr, { defaultDeadlineMs: 60_000 }),
    business: createServiceClient(business.BusinessService, config.tenantDirectoryAddr, { defaultDeadlineMs: 10_000 }),
    // two provider calls, each bounded by PROVIDER_TIMEOUT_MS (one safe retry)
    clientLifecycle: createServiceClient(business.ClientLifecycleService, config.signupAddr, { defaultDeadlineMs: 90_000 }),
    sendCounts: createServiceClient(business.UsageService, config.messagingAddr, { defaultDeadlineMs: 10_000 }),
    deliveryCounts: createServiceClient(business.UsageService, config.dispatcherAddr, { defaultDeadlineMs: 10_000 }),
    tenantData: Object.fromEntries(
      (
        [
          ['messaging', config.messagingAddr],
          ['flows', config.flowsAddr],
          ['signup', config.signupAddr],
          ['dispatcher', config.dispatcherAddr],
          ['tenant-directory', config.tenantDirectoryAddr],
        ] as const
      ).map(([name, addr]) => [name, createServiceClient(business.TenantDataService, addr, { defaultDeadlineMs: 60_000 })]),
    ),
    campaigns: createServiceClient(campaigns.CampaignsService, config.messagingAddr, { defaultDeadlineMs: 60_000 }),
  };
}

export function closeServices(s: Services): void {
  const { tenantData, sends: _sends, ...rest } = s;
  for (const c of [...Object.values(rest), ...Object.values(tenantData)]) (c as { close(): void }).close();
}
