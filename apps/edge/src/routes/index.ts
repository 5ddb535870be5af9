import type { RegisterRoutes } from './context';
import { registerApiKeyRoutes } from './api-keys';
import { registerCallRoutes } from './calls';
import { registerCampaignRoutes } from './campaigns';
import { registerClientRoutes } from './clients';
import { registerClientLifecycleRoutes } from './client-lifecycle';
import { registerAuditLogRoutes } from './audit-log';
import { registerUsageRoutes } from './usage';
import { registerConversationRoutes } from './conversations';
import { registerStreamRoutes } from './stream';
import { registerFlowRoutes } from './flows';
import { registerMediaRoutes } from './media';
import { registerMessageRoutes } from './messages';
import { registerMessagingRoutes } from './messaging';
import { registerTemplateRoutes } from './templates';
import { registerTenantRoutes } from './tenants';
import { registerWebhookDeliveryRoutes } from './webhook-deliveries';

/**
 * Tenant API routes (bearer API key, JSON bodies). One module per area; each registers its own paths.
 * Add a module here when an area is added.
 */
export const tenantApiRoutes: RegisterRoutes[] = [
  registerTenantRoutes,
  registerClientRoutes,
  registerClientLifecycleRoutes,
  registerMessagingRoutes,
  registerCallRoutes,
  registerMessageRoutes,
  registerConversationRoutes,
  registerStreamRoutes,
  registerWebhookDeliveryRoutes,
  registerFlowRoutes,
  registerApiKeyRoutes,
  registerTemplateRoutes,
  registerMediaRoutes,
  registerAuditLogRoutes,
  registerUsageRoutes,
  registerCampaignRoutes,
];
