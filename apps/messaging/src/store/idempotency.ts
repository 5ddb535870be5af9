import { randomUUID } from 'node:crypto';
import type { Queryable } from '@gateway/store';

/** What a finished request produced: its response, or the AppError it ended with. */
export type StoredOutcome = { ok: Record<string, unknown> } | { error: { kind: string; code: string; message: string; details: Record<string, unknown> } };

export type Claim =
  /** This request owns the key: run it, then complete or release with the token. */
  | { state: 'claimed'; token: string }
  /** An earlier request with the same body finished: replay its outcome. */
  | { state: 'completed'; outcome: StoredOutcome }
  /** An earlier request with the same body is still running. */
  | { state: 'in_progress' }
  /** The key was used with another request body. */
  | { state: 'mismatch' };

export interface IdempotencyRepository {
  claim(tenantId: string, key: string, requestHash: string, operation: string): Promise<Claim>;
  complete(tenantId: string, key: string, token: string, outcome: StoredOutcome): Promise<void>;
  release(tenantId: string, key: string, token: string): Promise<void>;
  purgeExpired(): Promise<number>;
}

export interface IdempotencyTimes {
  /** How long a key and its outcome are kept. */
  ttlMs: number;
  /** An in-progress claim older than this is taken to be abandoned (its process died) and may be taken over. */
  leaseMs: number;
}

interface KeyRow {
  request_hash: string;
  state: string;
  outcome: StoredOutcome | null;
}

/**
 * Idempotency keys, one row per (tenant_id, key). A request claims its key with INSERT … ON CONFLICT DO
 * NOTHING, so of any number of simultaneous requests exactly one owns it; the others read the row.
 */
export class SqlIdempotencyRepository implements IdempotencyRepository {
  constructor(
    private readonly q: Queryable,
    private readonly times: IdempotencyTimes,
  ) {}

  async claim(tenantId: string, key: string, requestHash: string, operation: string): Promise<Claim> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const token = randomUUID();
      const inserted = await this.q.query(
        `INSERT INTO idempotency_keys (tenant_id, key, request_hash, operation, state, claim_token, expires_at)
         VALUES ($1, $2, $3, $4, 'in_progress', $5, now() + ($6::double precision * interval '1 millisecond'))
         ON CONFLICT (tenant_id, key) DO NOTHING RETURNING claim_token`,
        [tenantId, key, requestHash, operation, token, this.times.ttlMs],
      );
      if (inserted.length) return { state: 'claimed', token };
      // an expired key, or a claim whose owner died, is taken over (one statement: one winner)
      const taken = await this.q.query(
        `UPDATE idempotency_keys SET request_hash = $3, operation = $4, state = 'in_progress', claim_token = $5, outcome = NULL,
           claimed_at = now(), expires_at = now() + ($6::double precision * interval '1 millisecond')
         WHERE tenant_id = $1 AND key = $2
           AND (expires_at <= now() OR (state = 'in_progress' AND claimed_at < now() - ($7::double precision * interval '1 millisecond')))
         RETURNING claim_token`,
        [tenantId, key, requestHash, operation, token, this.times.ttlMs, this.times.leaseMs],
      );
      if (taken.length) return { state: 'claimed', token };
      const [row] = await this.q.query<KeyRow>('SELECT request_hash, state, outcome FROM idempotency_keys WHERE tenant_id = $1 AND key = $2', [tenantId, key]);
      if (!row) continue; // released in the meantime: claim again
      if (row.request_hash !== requestHash) return { state: 'mismatch' };
      if (row.state !== 'completed' || !row.outcome) return { state: 'in_progress' };
      return { state: 'completed', outcome: row.outcome };
    }
    return { state: 'in_progress' };
  }

  async complete(tenantId: string, key: string, token: string, outcome: StoredOutcome): Promise<void> {
    await this.q.query(`UPDATE idempotency_keys SET state = 'completed', outcome = $4::jsonb WHERE tenant_id = $1 AND key = $2 AND claim_token = $3`, [
      tenantId,
      key,
      token,
      JSON.stringify(outcome),
    ]);
  }

  async release(tenantId: string, key: string, token: string): Promise<void> {
    await this.q.query('DELETE FROM idempotency_keys WHERE tenant_id = $1 AND key = $2 AND claim_token = $3', [tenantId, key, token]);
  }

  async purgeExpired(): Promise<number> {
    return (await this.q.query('DELETE FROM idempotency_keys WHERE expires_at <= now() RETURNING key')).length;
  }
}
