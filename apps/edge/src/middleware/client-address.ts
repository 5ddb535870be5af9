import type { Context, Next } from 'koa';
import proxyaddr from 'proxy-addr';

/** The headers a proxy sets for what it received; Koa reads them because the app trusts proxies (`proxy: true`). */
const FORWARDED_HEADERS = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'];

/**
 * Who the client is (`ctx.ip`, e.g. the signup page's rate limit), believed from `X-Forwarded-For` only when the
 * connection comes from a trusted proxy (TRUSTED_PROXIES): the address is the nearest one, walking from the
 * socket back through the header, that is not a trusted proxy (proxy-addr, Express's algorithm), so what a client
 * put in the header itself is never taken. From any other peer the forwarded headers are dropped before anything
 * reads them: the client is the socket's address, and `X-Forwarded-Proto`/`-Host` count for nothing either.
 */
export function clientAddress(trusted: string[]) {
  const trust = proxyaddr.compile(trusted);
  return (ctx: Context, next: Next) => {
    const peer = ctx.req.socket.remoteAddress;
    if (!peer || !trust(peer, 0)) for (const h of FORWARDED_HEADERS) delete ctx.req.headers[h];
    ctx.request.ip = proxyaddr(ctx.req, trust);
    return next();
  };
}
