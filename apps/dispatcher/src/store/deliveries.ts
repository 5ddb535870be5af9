import { randomUUID } from 'node:crypto';
import type { Queryable } from '@gateway/store';

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface AttemptRecord {
  number: number;
  at: Date;
  duration_ms: number;
  response_code: number | null;
  error: string | null;
}

export interface DeliveryRecord {
  id: string;
  tenant_id: string;
  client_id: string;
  event_id: string;
  event_type: string;
  series: number;
  url: string | null;
  status: DeliveryStatus;
  attempts: number;
  response_code: number | null;
  last_error: string | null;
  subject: string;
  body: string;
  created_at: Date;
  updated_at: Date;
}

export interface NewDelivery {
  id?: string;
  tenantId: string;
  clientId: string;
  eventId: string;
  eventType: string;
  series: number;
  subject: string;
  body: string;
}

export interface AttemptResult {
  at: Date;
  durationMs: number;
  url: string;
  responseCode: number | null;
  error: string | null;
  /** The status the series has after this attempt. */
  status: DeliveryStatus;
}

export interface ListFilter {
  tenantId: string;
  clientId: string;
  status?: string;
  eventType?: string;
  limit: number;
  /** id of the last record of the previous page (its exact created_at is looked up, microseconds included) */
  afterId?: string;
}

/**
 * Delivery records, owned by the dispatcher: one per attempt series of an event for a client, each with its
 * attempts. The SQL implementation runs on PGlite and PostgreSQL.
 */
export interface DeliveryRepository {
  /** The series' record, created pending on first sight; a repeat returns the existing one. */
  open(d: NewDelivery): Promise<DeliveryRecord>;
  get(id: string): Promise<DeliveryRecord | undefined>;
  /** Appends attempt `number` and sets the series' state; a repeat of the same attempt number changes nothing. */
  recordAttempt(id: string, number: number, r: AttemptResult): Promise<void>;
  /** Ends a series without an attempt (no target: `skipped`; the client is gone or attempts are spent: `failed`). */
  finish(id: string, status: Exclude<DeliveryStatus, 'pending'>, lastError: string | null, url?: string | null): Promise<void>;
  attempts(id: string): Promise<AttemptRecord[]>;
  list(f: ListFilter): Promise<DeliveryRecord[]>;
  /** The next free series number of an event (manual retries). */
  nextSeries(eventId: string): Promise<number>;
}

export class SqlDeliveryRepository implements DeliveryRepository {
  constructor(private readonly q: Queryable) {}

  async open(d: NewDelivery): Promise<DeliveryRecord> {
    const rows = await this.q.query<DeliveryRecord>(
      `INSERT INTO deliveries (id, tenant_id, client_id, event_id, event_type, series, status, subject, body)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8)
       ON CONFLICT (event_id, series) DO NOTHING RETURNING *`,
      [d.id ?? randomUUID(), d.tenantId, d.clientId, d.eventId, d.eventType, d.series, d.subject, d.body],
    );
    if (rows[0]) return rows[0];
    const existing = await this.q.query<DeliveryRecord>('SELECT * FROM deliveries WHERE event_id = $1 AND series = $2', [d.eventId, d.series]);
    return existing[0];
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    return (await this.q.query<DeliveryRecord>('SELECT * FROM deliveries WHERE id = $1', [id]))[0];
  }

  async recordAttempt(id: string, number: number, r: AttemptResult): Promise<void> {
    const inserted = await this.q.query(
      `INSERT INTO delivery_attempts (delivery_id, number, at, duration_ms, response_code, error)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING number`,
      [id, number, r.at, Math.round(r.durationMs), r.responseCode, r.error],
    );
    if (!inserted.length) return;
    await this.q.query(
      `UPDATE deliveries SET attempts = GREATEST(attempts, $2), status = $3, url = $4, response_code = $5, last_error = $6, updated_at = now()
       WHERE id = $1`,
      [id, number, r.status, r.url, r.responseCode, r.error],
    );
  }

  async finish(id: string, status: Exclude<DeliveryStatus, 'pending'>, lastError: string | null, url: string | null = null): Promise<void> {
    await this.q.query(
      `UPDATE deliveries SET status = $2, last_error = COALESCE($3, last_error), url = COALESCE($4, url), updated_at = now() WHERE id = $1`,
      [id, status, lastError, url],
    );
  }

  async attempts(id: string): Promise<AttemptRecord[]> {
    return this.q.query<AttemptRecord>('SELECT number, at, duration_ms, response_code, error FROM delivery_attempts WHERE delivery_id = $1 ORDER BY number', [id]);
  }

  async list(f: ListFilter): Promise<DeliveryRecord[]> {
    const where = ['tenant_id = $1', 'client_id = $2'];
    const params: unknown[] = [f.tenantId, f.clientId];
    if (f.status) where.push(`status = $${params.push(f.status)}`);
    if (f.eventType) where.push(`event_type = $${params.push(f.eventType)}`);
    if (f.afterId) where.push(`(created_at, id) < (SELECT created_at, id FROM deliveries WHERE id = $${params.push(f.afterId)})`);
    params.push(f.limit);
    return this.q.query<DeliveryRecord>(
      `SELECT * FROM deliveries WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
  }

  async nextSeries(eventId: string): Promise<number> {
    const rows = await this.q.query<{ n: number }>('SELECT COALESCE(MAX(series), -1)::int + 1 AS n FROM deliveries WHERE event_id = $1', [eventId]);
    return Number(rows[0].n);
  }
}
