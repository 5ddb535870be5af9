import { randomBytes } from 'node:crypto';
import { GraphError } from '../errors';
import type { SignupCode, SimState } from '../state';

/** Codes are single-use and short-lived, like the provider's (reference §11 quotes ~30 s; generous here for slow browsers). */
export const CODE_TTL_MS = 5 * 60_000;

export interface Onboarded {
  code: string;
  waba_id: string;
  phone_number_id: string;
  business_id: string;
  catalog_id: string | null;
}

/**
 * What the customer does in the provider's embedded-signup dialog: a business, a business account and a
 * phone number come into existence (the number is not registered yet, exactly as after a real signup), and
 * an authorization code is issued for the app.
 */
export function onboardBusiness(state: SimState, opts: { withCatalog: boolean; wabaId?: string }): Onboarded {
  // the same business going through signup again keeps its account and number (a retried signup)
  const again = opts.wabaId ? state.wabas.get(opts.wabaId) : undefined;
  const waba = again ?? state.createWaba({ withCatalog: opts.withCatalog });
  const phone = (again && [...state.phones.values()].find((p) => p.wabaId === again.id)) || state.createPhone(waba, { registered: false });
  const code = `AQ${randomBytes(32).toString('base64url')}`;
  state.codes.set(code, { code, wabaId: waba.id, phoneId: phone.id, businessId: waba.businessId, used: false, expiresAt: state.now() + CODE_TTL_MS });
  return { code, waba_id: waba.id, phone_number_id: phone.id, business_id: waba.businessId, catalog_id: waba.catalogId };
}

/** GET /oauth/access_token: app credentials first, then the code (unknown, used or expired codes fail alike). */
export function redeemCode(
  state: SimState,
  app: { appId: string; appSecret: string },
  q: { client_id?: string; client_secret?: string; code?: string },
): string {
  if (q.client_id !== app.appId) {
    throw new GraphError(400, 101, 'Error validating application. Invalid application ID.', { type: 'OAuthException' });
  }
  if (q.client_secret !== app.appSecret) throw new GraphError(400, 1, 'Error validating client secret.', { type: 'OAuthException' });
  if (!q.code) throw new GraphError(400, 100, 'Missing authorization code', { type: 'OAuthException' });
  const entry: SignupCode | undefined = state.codes.get(q.code);
  if (!entry) throw new GraphError(400, 100, 'Invalid verification code format.', { type: 'OAuthException', subcode: 36007 });
  if (entry.used) throw new GraphError(400, 100, 'This authorization code has been used.', { type: 'OAuthException', subcode: 36009 });
  if (state.now() > entry.expiresAt) throw new GraphError(400, 100, 'This authorization code has expired.', { type: 'OAuthException', subcode: 36007 });
  entry.used = true;
  return state.issueToken(entry.wabaId);
}
