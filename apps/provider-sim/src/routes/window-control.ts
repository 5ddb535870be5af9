import type Router from '@koa/router';
import { normalize, type SimState } from '../state';
import { jsonBody } from './graph';

/**
 * Control API of the failure modes the provider shows in production: the customer-service window,
 * undeliverable recipients, maintenance of a number, expiring tokens.
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
    if (seconds > 0) state.maintenance.set(id, Date.now() + seconds * 1000);
    else state.maintenance.delete(id);
    ctx.body = { phone_number_id: id, until: state.maintenance.has(id) ? new Date(state.maintenance.get(id)!).toISOString() : null };
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
      state.tokenExpiry.set(b.access_token, Date.now());
    }
    if (typeof b.ttl_ms === 'number') state.tokenTtlMs = b.ttl_ms;
    ctx.body = { token_ttl_ms: state.tokenTtlMs };
  });
}
