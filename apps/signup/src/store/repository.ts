import { isUniqueViolation, type Queryable } from '@gateway/store';

export type SessionStatus = 'open' | 'completing' | 'completed' | 'failed';

export interface SessionRow {
  id: string;
  client_id: string;
  tenant_id: string;
  state_hash: string;
  status: SessionStatus;
  failure_reason: string | null;
  failure_detail: string | null;
  created_at: Date;
  updated_at: Date;
  completed_at: Date | null;
  expires_at: Date;
}

export interface NewSession {
  id: string;
  clientId: string;
  tenantId: string;
  stateHash: string;
  ttlMs: number;
}

export interface Failure {
  reason: string;
  /** Human detail for operators (a provider message); never a token, code or PIN. */
  detail: string | null;
}

/** Outcome of taking a session for completion. */
export type ClaimResult = { claimed: SessionRow } | { busy: true } | { notOpen: true };

/**
 * Everything the signup service stores, behind one interface so another backend can be added beside the
 * SQL one. Times come from the database clock (`now()`), so every replica agrees on expiry.
 */
export interface SignupRepository {
  insertSession(s: NewSession): Promise<SessionRow>;
  findByStateHash(stateHash: string): Promise<SessionRow | undefined>;
  /** Whether the session's expiry has passed (database clock). */
  isExpired(id: string): Promise<boolean>;
  /**
   * open → completing, unless it expired or another session of the client is completing. A completion
   * stuck for longer than `staleAfterMs` (a crashed process) is failed first so the client is not locked.
   */
  claim(id: string, clientId: string, staleAfterMs: number): Promise<ClaimResult>;
  /** completing → completed. */
  markCompleted(id: string): Promise<SessionRow>;
  /** open or completing → failed. Undefined when the session was already closed. */
  markFailed(id: string, failure: Failure): Promise<SessionRow | undefined>;
  /** open → completed without a completion (the client was found completed already). */
  closeAsCompleted(id: string): Promise<SessionRow | undefined>;
  getPin(phoneNumberId: string): Promise<{ client_id: string; pin_enc: string } | undefined>;
  /** Keeps the first PIN stored for a phone number; returns the one that is stored. */
  savePin(phoneNumberId: string, clientId: string, pinEnc: string): Promise<{ client_id: string; pin_enc: string }>;
  /** The phone number moved to another client (a new signup of the same number): the PIN stays. */
  reassignPin(phoneNumberId: string, clientId: string): Promise<void>;
  /** Deletes sessions that expired more than `olderThanMs` ago; returns how many. */
  purgeExpired(olderThanMs: number): Promise<number>;
}

export class SqlSignupRepository implements SignupRepository {
  constructor(private readonly q: Queryable) {}

  async insertSession(s: NewSession): Promise<SessionRow> {
    const rows = await this.q.query<SessionRow>(
      `INSERT INTO sessions (id, client_id, tenant_id, state_hash, status, expires_at)
       VALUES ($1, $2, $3, $4, 'open', now() + ($5 * interval '1 millisecond')) RETURNING *`,
      [s.id, s.clientId, s.tenantId, s.stateHash, s.ttlMs],
    );
    return rows[0];
  }

  async findByStateHash(stateHash: string): Promise<SessionRow | undefined> {
    return (await this.q.query<SessionRow>('SELECT * FROM sessions WHERE state_hash = $1', [stateHash]))[0];
  }

  async isExpired(id: string): Promise<boolean> {
    const rows = await this.q.query<{ expired: boolean }>('SELECT expires_at <= now() AS expired FROM sessions WHERE id = $1', [id]);
    return rows[0]?.expired ?? true;
  }

  async claim(id: string, clientId: string, staleAfterMs: number): Promise<ClaimResult> {
    await this.q.query(
      `UPDATE sessions SET status = 'failed', failure_reason = 'interrupted', failure_detail = 'The completion did not finish', updated_at = now()
       WHERE client_id = $1 AND status = 'completing' AND updated_at < now() - ($2 * interval '1 millisecond')`,
      [clientId, staleAfterMs],
    );
    try {
      const rows = await this.q.query<SessionRow>(
        `UPDATE sessions SET status = 'completing', updated_at = now() WHERE id = $1 AND status = 'open' AND expires_at > now() RETURNING *`,
        [id],
      );
      return rows[0] ? { claimed: rows[0] } : { notOpen: true };
    } catch (e) {
      if (isUniqueViolation(e)) return { busy: true };
      throw e;
    }
  }

  async markCompleted(id: string): Promise<SessionRow> {
    const rows = await this.q.query<SessionRow>(
      `UPDATE sessions SET status = 'completed', failure_reason = NULL, failure_detail = NULL, completed_at = now(), updated_at = now()
       WHERE id = $1 RETURNING *`,
      [id],
    );
    return rows[0];
  }

  async markFailed(id: string, failure: Failure): Promise<SessionRow | undefined> {
    const rows = await this.q.query<SessionRow>(
      `UPDATE sessions SET status = 'failed', failure_reason = $2, failure_detail = $3, updated_at = now()
       WHERE id = $1 AND status IN ('open', 'completing') RETURNING *`,
      [id, failure.reason, failure.detail],
    );
    return rows[0];
  }

  async closeAsCompleted(id: string): Promise<SessionRow | undefined> {
    const rows = await this.q.query<SessionRow>(
      `UPDATE sessions SET status = 'completed', completed_at = now(), updated_at = now() WHERE id = $1 AND status = 'open' RETURNING *`,
      [id],
    );
    return rows[0];
  }

  async getPin(phoneNumberId: string) {
    return (
      await this.q.query<{ client_id: string; pin_enc: string }>('SELECT client_id, pin_enc FROM phone_pins WHERE phone_number_id = $1', [phoneNumberId])
    )[0];
  }

  async savePin(phoneNumberId: string, clientId: string, pinEnc: string) {
    await this.q.query('INSERT INTO phone_pins (phone_number_id, client_id, pin_enc) VALUES ($1, $2, $3) ON CONFLICT (phone_number_id) DO NOTHING', [
      phoneNumberId,
      clientId,
      pinEnc,
    ]);
    return (await this.getPin(phoneNumberId))!;
  }

  async purgeExpired(olderThanMs: number): Promise<number> {
    const rows = await this.q.query(
      `DELETE FROM sessions
       WHERE (status = 'open' AND expires_at < now()) OR (expires_at < now() - ($1 * interval '1 millisecond') AND status <> 'completing')
       RETURNING id`,
      [olderThanMs],
    );
    return rows.length;
  }

  async reassignPin(phoneNumberId: string, clientId: string): Promise<void> {
    await this.q.query('UPDATE phone_pins SET client_id = $2 WHERE phone_number_id = $1', [phoneNumberId, clientId]);
  }
}
