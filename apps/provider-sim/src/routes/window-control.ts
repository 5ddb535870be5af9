import type Router from '@koa/router';
import { normalize, type SimState } from '../state';
import { jsonBody } from './graph';

/**
 * Control API of the failure modes the provider shows in production: the customer-service window,
 * undeliverable recipients, maintenance of a number, expiring tokens and media ids (the clock), registration.
 */
export function registerWindowControl(router: Router, state: SimState): void {
  router.put('/_sim/window', (ctx) => {
    const mode = jsonBody(ctx).mode;
    if (mode === 'sync' || mode === 'async' || mode === 'off') state.window = mode;
    ctx.body = { mode: state.window };
  });

  router.put('/_sim/undeliverable', (ctx) => {
    const b = jsonBody(ctx);
    const code = typeof b.code === 'number' ? b.code : 131026;
    for (const n of Array.isArray(b.numbers) ? (b.numbers as string[]) : []) {
      if (code === 0) state.undeliverable.delete(normalize(n));
      else state.undeliverable.set(normalize(n), code);
    }
    ctx.body = { undeliverable: Object.fromEntries(state.undeliverable) };
  });

  router.put('/_sim/maintenance', (ctx) => {
    const b = jsonBody(ctx);
    const seconds = typeof b.seconds === 'number' ? b.seconds : 60;
    const id = String(b.phone_number_id);
    if (seconds > 0) state.maintenance.set(id, state.now() + seconds * 1000);
    else state.maintenance.delete(id);
    ctx.body = { phone_number_id: id, until: state.maintenance.has(id) ? new Date(state.maintenance.get(id)!).toISOString() : null };
  });

  /**
   * Moves the simulator's clock ahead (`advance_ms`), or to an offset from real time (`offset_ms`, 0 = real time):
   * media ids, the 24-hour windows, tokens and signup codes expire by it.
   */
  router.put('/_sim/clock', (ctx) => {
    const b = jsonBody(ctx);
    if (typeof b.offset_ms === 'number' && Number.isFinite(b.offset_ms)) state.clockOffsetMs = b.offset_ms;
    if (typeof b.advance_ms === 'number' && Number.isFinite(b.advance_ms) && b.advance_ms > 0) state.clockOffsetMs += b.advance_ms;
    ctx.body = { now: new Date(state.now()).toISOString(), offset_ms: state.clockOffsetMs };
  });

  /** The two-step verification PIN the business set on a number elsewhere (its WhatsApp Manager); `null` removes it. */
  router.put('/_sim/phone-numbers/:id/two-step', (ctx) => {
    const phone = state.phones.get(ctx.params.id);
    const pin = jsonBody(ctx).pin;
    if (!phone || !(pin === null || (typeof pin === 'string' && /^\d{6}$/.test(pin)))) {
      ctx.status = phone ? 400 : 404;
      ctx.body = { error: phone ? 'pin must be 6 digits or null' : 'unknown phone number' };
      return;
    }
    phone.pin = pin ?? undefined;
    phone.wrongPins = 0;
    phone.pinLockedUntil = undefined;
    ctx.body = { phone_number_id: phone.id, two_step: phone.pin !== undefined, registered: phone.registered };
  });

  /** Registration limits: `attempts` per `attempts_window_ms` (133016), `pin_guesses` before a `pin_lock_ms` lock (133008). */
  router.put('/_sim/registration-limits', (ctx) => {
    const b = jsonBody(ctx);
    const r = state.registration;
    const positive = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;
    if (positive(b.attempts)) r.attempts = b.attempts as number;
    if (positive(b.attempts_window_ms)) r.attemptsWindowMs = b.attempts_window_ms as number;
    if (positive(b.pin_guesses)) r.pinGuesses = b.pin_guesses as number;
    if (positive(b.pin_lock_ms)) r.pinLockMs = b.pin_lock_ms as number;
    ctx.body = { attempts: r.attempts, attempts_window_ms: r.attemptsWindowMs, pin_guesses: r.pinGuesses, pin_lock_ms: r.pinLockMs };
  });

  /** Expires one token now, or sets the lifetime of tokens issued from now on. */
  router.post('/_sim/tokens/expire', (ctx) => {
    const b = jsonBody(ctx);
    if (typeof b.access_token === 'string') {
      if (!state.tokens.has(b.access_token)) {
        ctx.status = 404;
        ctx.body = { error: 'unknown token' };
        return;
      }
      state.tokenExpiry.set(b.access_token, state.now());
    }
    if (typeof b.ttl_ms === 'number') state.tokenTtlMs = b.ttl_ms;
    ctx.body = { token_ttl_ms: state.tokenTtlMs };
  });
}
