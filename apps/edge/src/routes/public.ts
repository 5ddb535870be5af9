import type { RegisterRoutes } from './context';
import { registerProviderWebhookRoutes } from './provider-webhooks';
import { registerSignupRoutes } from './signup';

/**
 * Routes outside /api and /admin, without bearer auth: inbound provider webhooks (signature-checked on the raw
 * bytes) and the hosted embedded-signup page. Add a module here when such an area is added.
 */
export const publicRoutes: RegisterRoutes[] = [registerProviderWebhookRoutes, registerSignupRoutes];
