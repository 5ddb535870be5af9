import type { Context } from 'koa';
import type { tenantDirectory as td } from '@gateway/contracts';
import { constantTimeEqual } from '@gateway/crypto';
import { AppError } from '@gateway/errors';
import type { KeyPrincipal } from '../auth';
import type { Services } from '../services';
import type { SessionCookie } from './session-cookie';

export const CSRF_HEADER = 'x-csrf-token';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Resolves the dashboard's session cookie to the tenant principal its key gives. Not cached: sign-out and
 * revocation take effect on the next request. A state-changing request must carry the session's CSRF token
 * in X-CSRF-Token (a cookie alone never changes anything).
 */
export class SessionAuth {
  constructor(
    private readonly services: Services,
    readonly cookie: SessionCookie,
  ) {}

  /** The live session of the request's cookie, or undefined when there is no cookie. Throws 401 for an ended one. */
  async session(ctx: Context): Promise<td.Session | undefined> {
    const token = this.cookie.read(ctx);
    if (!token) return undefined;
    const res = await this.services.directory.authenticateSession({ sessionToken: token });
    return res.session;
  }

  /** For tenantAuth: the principal of the cookie's session, with the CSRF check for state-changing methods. */
  principal = async (ctx: Context): Promise<KeyPrincipal | undefined> => {
    const s = await this.session(ctx);
    if (!s) return undefined;
    if (!SAFE_METHODS.has(ctx.method)) requireCsrf(ctx, s);
    return { tenantId: s.tenantId, prefix: s.apiKeyPrefix };
  };
}

export function requireCsrf(ctx: Context, s: td.Session): void {
  const sent = ctx.get(CSRF_HEADER);
  if (!sent || !constantTimeEqual(sent, s.csrfToken)) {
    throw new AppError('forbidden', 'csrf_token_invalid', 'A request made with the dashboard session cookie must carry its X-CSRF-Token header');
  }
}
