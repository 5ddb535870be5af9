import type Router from '@koa/router';
import { renderDialog } from '../embedded-signup/dialog-page';
import { onboardBusiness } from '../embedded-signup/onboarding';
import { SDK_SCRIPT } from '../embedded-signup/sdk-script';
import type { SimState } from '../state';
import { jsonBody } from './graph';

export interface EmbeddedSignupDeps {
  state: SimState;
  appId: string;
  configId: string;
}

/** An http(s) origin exactly (what postMessage accepts as a target), or null. */
function originOf(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === value ? u.origin : null;
  } catch {
    return null;
  }
}

function dialogError(q: Record<string, unknown>, d: EmbeddedSignupDeps): string | null {
  if (q.client_id !== d.appId) return 'Invalid App ID: the app is not known to the provider.';
  if (q.config_id !== d.configId) return 'Invalid configuration: config_id does not belong to this app.';
  if (q.response_type !== 'code' || q.override_default_response_type !== 'true')
    return 'Embedded signup needs response_type "code" with override_default_response_type.';
  return extrasError(q.extras);
}

/**
 * Embedded signup versions (provider-2026.md §10): v4 takes `extras: {}` (its version and products come from
 * the Login for Business configuration). v2's `{setup, featureType, sessionInfoVersion}` was deprecated on
 * 2026-10-15 and v3's `{setup, features, featureType, version}` (and the previews) ended in October 2026: both
 * are refused, as the dialog of the provider does for a retired version.
 */
export function extrasError(raw: unknown): string | null {
  let extras: unknown = {};
  try {
    extras = typeof raw === 'string' && raw ? JSON.parse(raw) : {};
  } catch {
    return 'Invalid extras: not JSON.';
  }
  if (!extras || typeof extras !== 'object' || Array.isArray(extras)) return 'Invalid extras: not an object.';
  const e = extras as Record<string, unknown>;
  if (e.version !== undefined)
    return `Embedded Signup ${String(e.version)} is no longer available: use a Login for Business configuration of version 4 (extras: {}).`;
  if (e.sessionInfoVersion !== undefined || e.featureType !== undefined || e.setup !== undefined || e.features !== undefined)
    return 'Embedded Signup v2 was deprecated on 2026-10-15: use a Login for Business configuration of version 4 (extras: {}).';
  return null;
}

/**
 * The browser side of embedded signup (the provider's web origin, not the Graph API): the SDK stand-in,
 * its dialog, and a control route that onboards a business without a browser (service tests).
 */
export function registerEmbeddedSignup(router: Router, d: EmbeddedSignupDeps): void {
  router.get('/sdk.js', (ctx) => {
    ctx.type = 'application/javascript';
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Access-Control-Allow-Origin', '*');
    ctx.body = SDK_SCRIPT;
  });

  router.get('/dialog/oauth', (ctx) => {
    const q = ctx.query as Record<string, unknown>;
    const openerOrigin = originOf(q.origin);
    ctx.type = 'text/html';
    ctx.set('Cache-Control', 'no-store');
    ctx.body = renderDialog({
      appId: String(q.client_id ?? ''),
      configId: String(q.config_id ?? ''),
      openerOrigin,
      nonce: String(q.nonce ?? ''),
      version: String(q.version ?? ''),
      error: openerOrigin ? dialogError(q, d) : 'The dialog was opened without a valid origin.',
    });
  });

  // the dialog's own "Finish" (same origin as the dialog)
  router.post('/dialog/oauth/confirm', (ctx) => {
    const b = jsonBody(ctx);
    if (b.client_id !== d.appId || b.config_id !== d.configId) {
      ctx.status = 400;
      ctx.body = { error: 'unknown app or configuration' };
      return;
    }
    const { catalog_id: _catalog, ...visible } = onboardBusiness(d.state, { withCatalog: b.with_catalog === true });
    ctx.body = visible;
  });

  // body: {with_catalog?: boolean, waba_id?: an account onboarded before, to sign it up again}
  router.post('/_sim/embedded-signup', (ctx) => {
    const b = jsonBody(ctx);
    ctx.body = onboardBusiness(d.state, { withCatalog: b.with_catalog === true, wabaId: typeof b.waba_id === 'string' ? b.waba_id : undefined });
  });
}
