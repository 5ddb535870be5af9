import type { Queryable } from '@gateway/store';

export interface SessionRow {
  tenant_id: string;
  api_key_prefix: string;
  csrf_token: string;
  created_at: Date;
  idle_expires_at: Date;
  expires_at: Date;
}

/** Lifetimes of a dashboard session, in milliseconds. */
export interface SessionPolicy {
  idleMs: number;
  absoluteMs: number;
}

const COLUMNS = (idleParam: string) =>
  `s.tenant_id, s.api_key_prefix, s.csrf_token, s.created_at, least(s.last_seen_at + ${idleParam}::float8 * interval '1 millisecond', s.expires_at) AS idle_expires_at, s.expires_at`;

/**
 * Dashboard sessions, held by the SHA-256 of their token. Validity (not ended, not past its absolute or idle
 * lifetime, its key not revoked) is decided by the database clock in one query.
 */
export class SqlSessionRepository {
  constructor(private readonly q: Queryable) {}

  async insert(s: { tokenHash: string; tenantId: string; prefix: string; csrfToken: string }, policy: SessionPolicy): Promise<SessionRow> {
    // sessions long past their end are of no use to anyone: each sign-in sweeps a few
    await this.q.query(
      `DELETE FROM dashboard_sessions WHERE token_hash IN (SELECT token_hash FROM dashboard_sessions WHERE expires_at < now() - interval '1 day' LIMIT 100)`,
    );
    const rows = await this.q.query<SessionRow>(
      `INSERT INTO dashboard_sessions AS s (token_hash, tenant_id, api_key_prefix, csrf_token, expires_at)
       VALUES ($1, $2, $3, $4, now() + $5::float8 * interval '1 millisecond') RETURNING ${COLUMNS('$6')}`,
      [s.tokenHash, s.tenantId, s.prefix, s.csrfToken, policy.absoluteMs, policy.idleMs],
    );
    return rows[0];
  }

  /**
   * The live session of this token hash, its idle lifetime extended; undefined when it is unknown, ended,
   * expired or its key revoked. `touchEveryMs` bounds the writes: last_seen_at moves at most that often.
   */
  async touch(tokenHash: string, policy: SessionPolicy, touchEveryMs: number): Promise<SessionRow | undefined> {
    const live = `s.token_hash = $1 AND s.ended_at IS NULL AND s.expires_at > now()
      AND s.last_seen_at > now() - $2::float8 * interval '1 millisecond' AND k.revoked_at IS NULL`;
    const updated = await this.q.query<SessionRow>(
      `UPDATE dashboard_sessions s SET last_seen_at = now() FROM api_keys k
       WHERE k.prefix = s.api_key_prefix AND ${live} AND s.last_seen_at < now() - $3::float8 * interval '1 millisecond'
       RETURNING ${COLUMNS('$2')}`,
      [tokenHash, policy.idleMs, touchEveryMs],
    );
    if (updated[0]) return updated[0];
    const rows = await this.q.query<SessionRow>(
      `SELECT ${COLUMNS('$2')} FROM dashboard_sessions s JOIN api_keys k ON k.prefix = s.api_key_prefix WHERE ${live}`,
      [tokenHash, policy.idleMs],
    );
    return rows[0];
  }

  async end(tokenHash: string): Promise<void> {
    await this.q.query('UPDATE dashboard_sessions SET ended_at = coalesce(ended_at, now()) WHERE token_hash = $1', [tokenHash]);
  }
}
