import type { Context } from 'koa';
import { expiredToken, invalidToken, unknownObject } from '../errors';
import type { PhoneNumber, SimState, Waba } from '../state';

/** Auth and object lookup shared by the Graph routes. */
export function bearer(ctx: Context, state?: SimState): string {
  const m = /^Bearer (.+)$/.exec(ctx.get('authorization'));
  if (!m) throw invalidToken();
  if (state?.tokenExpired(m[1])) throw expiredToken();
  return m[1];
}

export function phoneFor(ctx: Context, state: SimState, phoneId: string): PhoneNumber {
  const token = bearer(ctx, state);
  if (!state.tokens.has(token)) throw invalidToken();
  const phone = state.phones.get(phoneId);
  if (!phone || !state.tokenAllows(token, phone.wabaId)) throw unknownObject(phoneId, ctx.method.toLowerCase());
  return phone;
}

export function wabaFor(ctx: Context, state: SimState, wabaId: string): Waba {
  const token = bearer(ctx, state);
  if (!state.tokens.has(token)) throw invalidToken();
  const waba = state.wabas.get(wabaId);
  if (!waba || !state.tokenAllows(token, waba.id)) throw unknownObject(wabaId, ctx.method.toLowerCase());
  return waba;
}

export function jsonBody(ctx: Context): Record<string, unknown> {
  const b = ctx.request.body;
  return b && typeof b === 'object' && !Array.isArray(b) ? (b as Record<string, unknown>) : {};
}
