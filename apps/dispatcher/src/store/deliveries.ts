import { DELIVERY_STATUSES, type DeliveryStatus } from '@gateway/events';
import type { Queryable } from '@gateway/store';

/** The statuses are @gateway/events' (the edge validates filters with the same list). */
export { DELIVERY_STATUSES, type DeliveryStatus };

export interface AttemptRecord {
  number: number;
  /** ISO 8601 */
  at: string;
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
  attempt_log: AttemptRecord[];
  created_at: Date;
  updated_at: Date;
}

/** What the delivery worker reads of a series before an attempt. */
export type SeriesState = Pick<DeliveryRecord, 'id' | 'status' | 'attempts' | 'response_code' | 'last_error'>;

export interface SeriesKey {
  /** The record's id: given up front for test events and manual retries, derived from the event id otherwise. */
  id: string;
  tenantId: string;
  clientId: string;
  eventId: string;
  eventType: string;
  series: number;
  subject: string;
  body: string;
}

/** The state of a series after an attempt (or after it ended without one: `attempt` undefined). */
export interface SeriesUpdate extends SeriesKey {
  status: DeliveryStatus;
  url: string | null;
  responseCode: number | null;
  lastError: string | null;
  attempt?: AttemptRecord;
  /** Attempts made so far when the series ends without one (skipped after a disable, filtered mid-series). */
  attempts?: number;
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
 * Delivery records, owned by the dispatcher: one row per attempt series of an event for a client, its
 * attempts in `attempt_log`. The SQL implementation runs on PGlite and PostgreSQL.
 */
export interface DeliveryRepository {
  /** A series created pending before its first attempt (so its id can be answered at once). */
  create(d: SeriesKey): Promise<DeliveryRecord>;
  /** The series of an event, if it has a record yet. */
  find(eventId: string, series: number): Promise<DeliveryRecord | undefined>;
  get(id: string): Promise<DeliveryRecord | undefined>;
  /** Where the series with these ids stand (those that have a record), in one statement. */
  states(ids: string[]): Promise<Map<string, SeriesState>>;
  /**
   * Writes the outcome of attempts (one row per series), many in one statement. A row is created when
   * missing; an existing one only moves forward (a repeat of an attempt already recorded changes nothing).
   */
  apply(updates: SeriesUpdate[]): Promise<void>;
  list(f: ListFilter): Promise<DeliveryRecord[]>;
  /** The next free series number of an event (manual retries). */
  nextSeries(eventId: string): Promise<number>;
  /**
   * Records to replay: the latest series of each event of the client, with `status`, created in
   * [since, until), oldest first.
   */
  replayable(f: ReplayFilter): Promise<DeliveryRecord[]>;
  /** Many pending series at once; returns the ids actually created (a concurrent retry may hold a series). */
  createMany(series: SeriesKey[]): Promise<Set<string>>;
}

export interface ReplayFilter {
  tenantId: string;
  clientId: string;
  status: 'failed' | 'skipped';
  since: Date;
  until?: Date;
  limit: number;
}

const COLUMNS = 15;

export class SqlDeliveryRepository implements DeliveryRepository {
  constructor(private readonly q: Queryable) {}

  async create(d: SeriesKey): Promise<DeliveryRecord> {
    const rows = await this.q.query<DeliveryRecord>(
      `INSERT INTO deliveries (id, tenant_id, client_id, event_id, event_type, series, status, subject, body)
       VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8)
       ON CONFLICT (event_id, series) DO NOTHING RETURNING *`,
      [d.id, d.tenantId, d.clientId, d.eventId, d.eventType, d.series, d.subject, d.body],
    );
    return rows[0] ?? (await this.find(d.eventId, d.series))!;
  }

  async find(eventId: string, series: number): Promise<DeliveryRecord | undefined> {
    return (await this.q.query<DeliveryRecord>('SELECT * FROM deliveries WHERE event_id = $1 AND series = $2', [eventId, series]))[0];
  }

  async get(id: string): Promise<DeliveryRecord | undefined> {
    return (await this.q.query<DeliveryRecord>('SELECT * FROM deliveries WHERE id = $1', [id]))[0];
  }

  async states(ids: string[]): Promise<Map<string, SeriesState>> {
    if (!ids.length) return new Map();
    const rows = await this.q.query<SeriesState>('SELECT id, status, attempts, response_code, last_error FROM deliveries WHERE id = ANY($1)', [ids]);
    return new Map(rows.map((r) => [r.id, r]));
  }

  async apply(updates: SeriesUpdate[]): Promise<void> {
    if (!updates.length) return;
    // one row per series in a statement (ON CONFLICT cannot touch a row twice): the furthest update wins
    const bySeries = new Map<string, SeriesUpdate>();
    for (const u of updates) {
      const k = `${u.eventId}\u0000${u.series}`;
      const prev = bySeries.get(k);
      if (!prev || (u.attempt?.number ?? u.attempts ?? 0) >= (prev.attempt?.number ?? prev.attempts ?? 0)) bySeries.set(k, u);
    }
    const params: unknown[] = [];
    const values = [...bySeries.values()].map((u, i) => {
      params.push(
        u.id,
        u.tenantId,
        u.clientId,
        u.eventId,
        u.eventType,
        u.series,
        u.url,
        u.status,
        u.attempt?.number ?? u.attempts ?? 0,
        u.responseCode,
        u.lastError,
        u.subject,
        u.body,
        JSON.stringify(u.attempt ? [u.attempt] : []),
        new Date(),
      );
      const b = i * COLUMNS;
      return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}::int, $${b + 7}, $${b + 8}, $${b + 9}::int, $${b + 10}::int, $${b + 11}, $${b + 12}, $${b + 13}, $${b + 14}::jsonb, $${b + 15}::timestamptz)`;
    });
    await this.q.query(
      `INSERT INTO deliveries AS d (id, tenant_id, client_id, event_id, event_type, series, url, status, attempts, response_code, last_error, subject, body, attempt_log, updated_at)
       VALUES ${values.join(', ')}
       ON CONFLICT (event_id, series) DO UPDATE SET
         status = EXCLUDED.status, url = COALESCE(EXCLUDED.url, d.url), attempts = EXCLUDED.attempts,
         response_code = COALESCE(EXCLUDED.response_code, CASE WHEN EXCLUDED.attempts > d.attempts THEN NULL ELSE d.response_code END),
         last_error = EXCLUDED.last_error, attempt_log = d.attempt_log || EXCLUDED.attempt_log, updated_at = EXCLUDED.updated_at
       WHERE d.status = 'pending' AND (EXCLUDED.attempts > d.attempts OR (EXCLUDED.attempts = d.attempts AND EXCLUDED.attempt_log = '[]'::jsonb))`,
      params,
    );
  }

  async list(f: ListFilter): Promise<DeliveryRecord[]> {
    const where = ['tenant_id = $1', 'client_id = $2'];
    const params: unknown[] = [f.tenantId, f.clientId];
    if (f.status) where.push(`status = $${params.push(f.status)}`);
    if (f.eventType) where.push(`event_type = $${params.push(f.eventType)}`);
    // the position of a record of this same list only: another client's id positions nothing
    if (f.afterId)
      where.push(`(created_at, id) < (SELECT created_at, id FROM deliveries WHERE id = $${params.push(f.afterId)} AND tenant_id = $1 AND client_id = $2)`);
    params.push(f.limit);
    return this.q.query<DeliveryRecord>(
      `SELECT * FROM deliveries WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
      params,
    );
  }

  async replayable(f: ReplayFilter): Promise<DeliveryRecord[]> {
    return this.q.query<DeliveryRecord>(
      `SELECT d.* FROM deliveries d
       WHERE d.tenant_id = $1 AND d.client_id = $2 AND d.status = $3 AND d.created_at >= $4 AND ($5::timestamptz IS NULL OR d.created_at < $5)
         AND NOT EXISTS (SELECT 1 FROM deliveries l WHERE l.event_id = d.event_id AND l.series > d.series)
       ORDER BY d.created_at, d.id LIMIT $6`,
      [f.tenantId, f.clientId, f.status, f.since, f.until ?? null, f.limit],
    );
  }

  async createMany(series: SeriesKey[]): Promise<Set<string>> {
    const created = new Set<string>();
    const ROWS = 500; // 8 parameters a row
    for (let i = 0; i < series.length; i += ROWS) {
      const params: unknown[] = [];
      const values = series.slice(i, i + ROWS).map((d) => {
        params.push(d.id, d.tenantId, d.clientId, d.eventId, d.eventType, d.series, d.subject, d.body);
        const b = params.length - 8;
        return `($${b + 1}, $${b + 2}, $${b + 3}, $${b + 4}, $${b + 5}, $${b + 6}::int, 'pending', $${b + 7}, $${b + 8})`;
      });
      const rows = await this.q.query<{ id: string }>(
        `INSERT INTO deliveries (id, tenant_id, client_id, event_id, event_type, series, status, subject, body)
         VALUES ${values.join(', ')} ON CONFLICT (event_id, series) DO NOTHING RETURNING id`,
        params,
      );
      for (const r of rows) created.add(r.id);
    }
    return created;
  }

  async nextSeries(eventId: string): Promise<number> {
    const rows = await this.q.query<{ n: number }>('SELECT COALESCE(MAX(series), -1)::int + 1 AS n FROM deliveries WHERE event_id = $1', [eventId]);
    return Number(rows[0].n);
  }
}
