import type Router from '@koa/router';
import { GraphError, invalidParameter } from '../errors';
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
const tooManyGuesses = () =>
  new GraphError(400, 133008, '(#133008) Too many two step verification PIN guesses for this phone number', {
    details: 'Too many wrong two-step verification PINs; try again later',
  });

export function registerOnboarding(router: Router, d: OnboardingDeps): void {
  router.get('/oauth/access_token', (ctx) => {
    const q = ctx.query as Record<string, string | undefined>;
    const accessToken = redeemCode(d.state, d, { client_id: q.client_id, client_secret: q.client_secret, code: q.code });
    ctx.body = { access_token: accessToken, token_type: 'bearer' };
  });

  /*
   * Registration (reference §6.2): the PIN becomes the number's two-step verification PIN; a number that has one
   * must be given it (133005), too many wrong ones lock guessing (133008), and too many register calls in the
   * window are refused whatever the PIN (133016).
   */
  router.post('/:phoneId/register', (ctx) => {
    const phone = phoneFor(ctx, d.state, ctx.params.phoneId);
    const b = jsonBody(ctx);
    if (b.messaging_product !== 'whatsapp') throw invalidParameter('messaging_product must be "whatsapp"');
    if (typeof b.pin !== 'string' || !/^\d{6}$/.test(b.pin)) throw invalidParameter('Invalid PIN format. PIN must be exactly 6 digits');
    const now = d.state.now();
    const limits = d.state.registration;
    phone.registerLog = phone.registerLog.filter((at) => at > now - limits.attemptsWindowMs);
    if (phone.registerLog.length >= limits.attempts) {
      throw new GraphError(400, 133016, '(#133016) Account register deregister rate limit exceeded', {
        details: `Too many register or deregister attempts for this phone number: at most ${limits.attempts} in ${limits.attemptsWindowMs / 3600_000} hours`,
      });
    }
    phone.registerLog.push(now);
    if (phone.pinLockedUntil !== undefined && phone.pinLockedUntil > now) throw tooManyGuesses();
    if (phone.pin !== undefined && b.pin !== phone.pin) {
      phone.wrongPins += 1;
      if (phone.wrongPins >= limits.pinGuesses) {
        phone.pinLockedUntil = now + limits.pinLockMs;
        phone.wrongPins = 0;
        throw tooManyGuesses();
      }
      throw new GraphError(400, 133005, '(#133005) Two step verification PIN Mismatch', {
        details: 'The PIN does not match the two-step verification PIN set on this phone number',
      });
    }
    phone.wrongPins = 0;
    phone.registered = true;
    phone.pin = b.pin;
    ctx.body = { success: true };
  });

  router.post('/:wabaId/subscribed_apps', (ctx) => {
    const waba = wabaFor(ctx, d.state, ctx.params.wabaId);
    waba.subscribedApps.add(d.appId);
    ctx.body = { success: true };
  });

  /*
   * Deregistration (provider-openapi-v23 deregisterPhoneNumber): the number must be registered (else code 100), and
   * it counts against the same register/deregister rate as registration (133016).
   */
  router.post('/:phoneId/deregister', (ctx) => {
    const phone = phoneFor(ctx, d.state, ctx.params.phoneId);
    const now = d.state.now();
    const limits = d.state.registration;
    phone.registerLog = phone.registerLog.filter((at) => at > now - limits.attemptsWindowMs);
    if (phone.registerLog.length >= limits.attempts) {
      throw new GraphError(400, 133016, '(#133016) Account register deregister rate limit exceeded', {
        details: `Too many register or deregister attempts for this phone number: at most ${limits.attempts} in ${limits.attemptsWindowMs / 3600_000} hours`,
      });
    }
    if (!phone.registered) throw invalidParameter('The phone number is not registered on the WhatsApp Business Platform');
    phone.registerLog.push(now);
    phone.registered = false;
    ctx.body = { success: true };
  });

  router.delete('/:wabaId/subscribed_apps', (ctx) => {
    const waba = wabaFor(ctx, d.state, ctx.params.wabaId);
    waba.subscribedApps.delete(d.appId);
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
