import type Router from '@koa/router';
import { invalidParameter } from '../errors';
import { redeemCode } from '../embedded-signup/onboarding';
import type { SimState } from '../state';
import { jsonBody, phoneFor, wabaFor } from './graph';

export interface OnboardingDeps {
  state: SimState;
  appId: string;
  appSecret: string;
}

/**
 * The server side of embedded signup (reference §6.2): code exchange, phone registration, webhook
 * subscription, and the catalog edge of the business account. Failures on demand come from /_sim/faults.
 */
export function registerOnboarding(router: Router, d: OnboardingDeps): void {
  router.get('/oauth/access_token', (ctx) => {
    const q = ctx.query as Record<string, string | undefined>;
    const accessToken = redeemCode(d.state, d, { client_id: q.client_id, client_secret: q.client_secret, code: q.code });
    ctx.body = { access_token: accessToken, token_type: 'bearer' };
  });

  router.post('/:phoneId/register', (ctx) => {
    const phone = phoneFor(ctx, d.state, ctx.params.phoneId);
    const b = jsonBody(ctx);
    if (b.messaging_product !== 'whatsapp') throw invalidParameter('messaging_product must be "whatsapp"');
    if (typeof b.pin !== 'string' || !/^\d{6}$/.test(b.pin)) throw invalidParameter('Invalid PIN format. PIN must be exactly 6 digits');
    phone.registerAttempts += 1;
    phone.registered = true;
    phone.pin = b.pin;
    ctx.body = { success: true };
  });

  router.post('/:wabaId/subscribed_apps', (ctx) => {
    const waba = wabaFor(ctx, d.state, ctx.params.wabaId);
    waba.subscribedApps.add(d.appId);
    ctx.body = { success: true };
  });

  router.get('/:wabaId/subscribed_apps', (ctx) => {
    const waba = wabaFor(ctx, d.state, ctx.params.wabaId);
    ctx.body = {
      data: [...waba.subscribedApps].map((id) => ({ whatsapp_business_api_data: { id, name: 'Simulated app', link: `https://sim.test/apps/${id}` } })),
    };
  });

  router.get('/:wabaId/product_catalogs', (ctx) => {
    const waba = wabaFor(ctx, d.state, ctx.params.wabaId);
    ctx.body = { data: waba.catalogId ? [{ id: waba.catalogId, name: 'Simulated catalog' }] : [] };
  });
}
