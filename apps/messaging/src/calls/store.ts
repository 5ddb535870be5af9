import { POSITION_AT, type ListPosition, type Queryable } from '@gateway/store';
import type { CallEvent } from './record';

/** The most events one call keeps: a call says a handful of things; repeats beyond this are dropped. */
export const MAX_CALL_EVENTS = 64;

export interface CallRow {
  client_id: string;
  call_id: string;
  tenant_id: string;
  direction: string;
  user_id: string;
  events: CallEvent[];
  created_at: Date;
  updated_at: Date;
  position: ListPosition;
}

/** What one event adds to a call, with what it knows of the call (direction and user, when it says). */
export interface CallEventInput {
  tenantId: string;
  clientId: string;
  callId: string;
  /** user_initiated or business_initiated; empty when the event does not say. */
  direction: string;
  user: string;
  event: CallEvent;
}

type Raw = Omit<CallRow, 'position'> & { position_at: string };
const row = (r: Raw): CallRow => {
  const { position_at, ...rest } = r;
  return { ...rest, position: { at: position_at, id: r.call_id } };
};

/** The call records, owned by the messaging service (calls/record.ts reads them). */
export class SqlCallRepository {
  constructor(private readonly q: Queryable) {}

  /** Appends an event to the call's record, creating it on its first event (whichever that is). */
  async append(e: CallEventInput): Promise<void> {
    await this.q.query(
      `INSERT INTO calls (client_id, call_id, tenant_id, direction, user_id, events) VALUES ($1, $2, $3, $4, $5, jsonb_build_array($6::jsonb))
       ON CONFLICT (client_id, call_id) DO UPDATE SET
         direction = CASE WHEN calls.direction = '' THEN $4 ELSE calls.direction END,
         user_id = CASE WHEN calls.user_id = '' THEN $5 ELSE calls.user_id END,
         events = CASE WHEN jsonb_array_length(calls.events) >= ${MAX_CALL_EVENTS} THEN calls.events ELSE calls.events || jsonb_build_array($6::jsonb) END,
         updated_at = now()`,
      [e.clientId, e.callId, e.tenantId, e.direction, e.user, JSON.stringify(e.event)],
    );
  }

  async get(tenantId: string, clientId: string, callId: string): Promise<CallRow | undefined> {
    const [r] = await this.q.query<Raw>(`SELECT *, ${POSITION_AT} AS position_at FROM calls WHERE tenant_id = $1 AND client_id = $2 AND call_id = $3`, [
      tenantId,
      clientId,
      callId,
    ]);
    return r ? row(r) : undefined;
  }

  /** The clients (and their tenants) holding a record of this call id. */
  async holders(callId: string): Promise<Array<{ tenant_id: string; client_id: string }>> {
    return this.q.query<{ tenant_id: string; client_id: string }>(`SELECT tenant_id, client_id FROM calls WHERE call_id = $1`, [callId]);
  }

  /** A client's calls, newest first, `limit` rows after `after`. */
  async list(tenantId: string, clientId: string, limit: number, after?: ListPosition): Promise<CallRow[]> {
    const rows = await this.q.query<Raw>(
      `SELECT *, ${POSITION_AT} AS position_at FROM calls WHERE tenant_id = $1 AND client_id = $2
         ${after ? `AND (created_at, call_id) < ($4::timestamptz, $5)` : ''}
       ORDER BY created_at DESC, call_id DESC LIMIT $3`,
      after ? [tenantId, clientId, limit, after.at, after.id] : [tenantId, clientId, limit],
    );
    return rows.map(row);
  }
}
