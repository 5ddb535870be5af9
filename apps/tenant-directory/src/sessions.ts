import { AppError } from '@gateway/errors';
import { randomToken, sha256Hex } from '@gateway/crypto';
import type { tenantDirectory as td } from '@gateway/contracts';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { SessionPolicy, SessionRow, SqlSessionRepository } from './store/sessions';
import type { Tenants } from './tenants';

type SessionInit = MessageInitShape<typeof td.SessionSchema>;

const invalidSession = () => new AppError('unauthenticated', 'invalid_session', 'Session ended or expired; sign in again');

/**
 * Dashboard sessions: an API key is exchanged for a random session token (256 bits, only its hash stored)
 * and a CSRF token. The session lives until sign-out, its idle or absolute lifetime, or its key's revocation.
 */
export class Sessions {
  /** last_seen_at moves at most this often, so a busy dashboard does not write on every request. */
  private readonly touchEveryMs: number;

  constructor(
    private readonly repo: SqlSessionRepository,
    private readonly tenants: Tenants,
    private readonly policy: SessionPolicy,
  ) {
    this.touchEveryMs = Math.min(60_000, Math.floor(policy.idleMs / 10));
  }

  async create(apiKey: string): Promise<{ sessionToken: string; session: SessionInit }> {
    const key = await this.tenants.authenticate(apiKey);
    const token = `gws_${randomToken(32)}`;
    const row = await this.repo.insert({ tokenHash: sha256Hex(token), tenantId: key.tenantId, prefix: key.prefix, csrfToken: randomToken(32) }, this.policy);
    return { sessionToken: token, session: present(row) };
  }

  async authenticate(token: string): Promise<SessionInit> {
    const row = token.length <= 256 ? await this.repo.touch(sha256Hex(token), this.policy, this.touchEveryMs) : undefined;
    if (!row) throw invalidSession();
    return present(row);
  }

  async end(token: string): Promise<void> {
    if (token.length <= 256) await this.repo.end(sha256Hex(token));
  }
}

function present(r: SessionRow): SessionInit {
  return {
    tenantId: r.tenant_id,
    apiKeyPrefix: r.api_key_prefix,
    csrfToken: r.csrf_token,
    createdAt: r.created_at.toISOString(),
    idleExpiresAt: r.idle_expires_at.toISOString(),
    expiresAt: r.expires_at.toISOString(),
  };
}
