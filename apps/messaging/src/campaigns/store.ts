import { randomUUID } from 'node:crypto';
import { POSITION_AT, type Queryable } from '@gateway/store';

export type CampaignStatus = 'draft' | 'scheduled' | 'running' | 'paused' | 'completed' | 'cancelled';
/** `claimed` and `sending` are internal (a replica holds them); the API counts them as queued. */
export type RecipientStatus = 'queued' | 'claimed' | 'sending' | 'sent' | 'delivered' | 'read' | 'failed' | 'skipped' | 'deferred' | 'unknown';

export interface CampaignRow {
  id: string;
  tenant_id: string;
  client_id: string;
  name: string;
  template_name: string;
  lang: string;
  category: string;
  components: Array<Record<string, unknown>>;
  status: CampaignStatus;
  schedule_at: Date | null;
  rate_per_second: number | null;
  created_at: Date;
  updated_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  last_send_at: Date | null;
  position_at: string;
}

/** Values of a recipient's template variables: positional (in order) or named. */
export type RecipientParams = string[] | Record<string, string> | null;

export interface RecipientRow {
  campaign_id: string;
  seq: string;
  to_user: string;
  params: RecipientParams;
  status: RecipientStatus;
  message_id: string | null;
  error_code: string | null;
  reason: string | null;
  updated_at: Date;
}

export interface NewRecipient {
  to: string;
  params: RecipientParams;
}

/** What becomes of a recipient once its turn is over. */
export interface FinishOutcome {
  status: RecipientStatus;
  messageId?: string;
  errorCode?: string;
  reason?: string;
}

export const COUNT_NAMES = ['total', 'queued', 'sent', 'delivered', 'read', 'failed', 'skipped', 'deferred', 'unknown'] as const;
export type Counts = Record<(typeof COUNT_NAMES)[number], number>;

/** How long a replica holds recipients it claimed before it must have sent them (its lease). */
export const CLAIM_LEASE_MS = 30_000;

/**
 * Reserves `n` send slots of a number (`reserveSlots`), its parameters named: the row is created on a number's first
 * batch, else locked and moved on by the upsert; answers how long until the first slot and the interval (ms).
 */
const RESERVE_SLOTS = (phone: string, n: string, interval: string) =>
  `INSERT INTO number_pace AS p (phone_number_id, next_at) VALUES (${phone}, clock_timestamp() + make_interval(secs => ${interval}::double precision * ${n} / 1000))
   ON CONFLICT (phone_number_id) DO UPDATE
     SET next_at = GREATEST(p.next_at, clock_timestamp()) + make_interval(secs => ${interval}::double precision / p.factor * ${n} / 1000)
   RETURNING (EXTRACT(EPOCH FROM (p.next_at - clock_timestamp())) * 1000 - ${interval}::double precision / p.factor * ${n})::double precision AS first_in_ms,
     (${interval}::double precision / p.factor)::double precision AS interval_ms`;

/** The campaign tables of the messaging service (migration 50). */
export class SqlCampaignRepository {
  constructor(private readonly q: Queryable) {}

  async create(c: {
    tenantId: string;
    clientId: string;
    name: string;
    templateName: string;
    lang: string;
    category: string;
    components: unknown[];
    status: CampaignStatus;
    scheduleAt: Date | null;
    ratePerSecond: number | null;
  }): Promise<CampaignRow> {
    const [row] = await this.q.query<CampaignRow>(
      `INSERT INTO campaigns (id, tenant_id, client_id, name, template_name, lang, category, components, status, schedule_at, rate_per_second)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11) RETURNING *, ${POSITION_AT} AS position_at`,
      [randomUUID(), c.tenantId, c.clientId, c.name, c.templateName, c.lang, c.category, JSON.stringify(c.components), c.status, c.scheduleAt, c.ratePerSecond],
    );
    return row;
  }

  /** A campaign of the tenant (any of its clients). */
  async get(tenantId: string, id: string): Promise<CampaignRow | undefined> {
    const [row] = await this.q.query<CampaignRow>(`SELECT *, ${POSITION_AT} AS position_at FROM campaigns WHERE id = $1 AND tenant_id = $2`, [id, tenantId]);
    return row;
  }

  async byId(id: string): Promise<CampaignRow | undefined> {
    const [row] = await this.q.query<CampaignRow>(`SELECT *, ${POSITION_AT} AS position_at FROM campaigns WHERE id = $1`, [id]);
    return row;
  }

  async list(tenantId: string, clientId: string, limit: number, after?: { at: string; id: string }): Promise<CampaignRow[]> {
    return this.q.query<CampaignRow>(
      `SELECT *, ${POSITION_AT} AS position_at FROM campaigns WHERE tenant_id = $1 AND client_id = $2
         ${after ? 'AND (created_at, id) < ($4::timestamptz, $5)' : ''}
       ORDER BY created_at DESC, id DESC LIMIT $3`,
      after ? [tenantId, clientId, limit, after.at, after.id] : [tenantId, clientId, limit],
    );
  }

  /**
   * Adds recipients in order; one already in the campaign (or twice in the list) is dropped. The whole list is one
   * statement (its seqs taken from the campaign's row and the rows inserted from two arrays): one round trip and one
   * commit, whatever its length, where a multi-row VALUES list took a statement per 500 rows and one commit each.
   */
  async addRecipients(campaignId: string, recipients: NewRecipient[]): Promise<{ added: number; duplicates: number }> {
    if (!recipients.length) return { added: 0, duplicates: 0 };
    const rows = await this.q.query(
      `WITH c AS (UPDATE campaigns SET next_seq = next_seq + $2, updated_at = now() WHERE id = $1 RETURNING next_seq - $2 AS first)
       INSERT INTO campaign_recipients (campaign_id, seq, to_user, params, status)
       SELECT $1, c.first + u.ord - 1, u.to_user, u.params::jsonb, 'queued'
       FROM c, unnest($3::text[], $4::text[]) WITH ORDINALITY AS u(to_user, params, ord) ORDER BY u.ord
       ON CONFLICT (campaign_id, to_user) DO NOTHING RETURNING seq`,
      [campaignId, recipients.length, recipients.map((r) => r.to), recipients.map((r) => (r.params === null ? null : JSON.stringify(r.params)))],
    );
    return { added: rows.length, duplicates: recipients.length - rows.length };
  }

  async counts(campaignId: string): Promise<Counts> {
    const rows = await this.q.query<{ status: RecipientStatus; n: string }>(
      `SELECT status, count(*) AS n FROM campaign_recipients WHERE campaign_id = $1 GROUP BY status`,
      [campaignId],
    );
    const c: Counts = { total: 0, queued: 0, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0, deferred: 0, unknown: 0 };
    for (const r of rows) {
      const n = Number(r.n);
      c.total += n;
      const key = r.status === 'claimed' || r.status === 'sending' ? 'queued' : r.status;
      c[key] += n;
    }
    return c;
  }

  async recipients(campaignId: string, opts: { statuses?: RecipientStatus[]; limit: number; afterSeq?: string }): Promise<RecipientRow[]> {
    const params: unknown[] = [campaignId, opts.limit];
    let where = 'campaign_id = $1';
    if (opts.statuses) {
      params.push(opts.statuses);
      where += ` AND status = ANY($${params.length}::text[])`;
    }
    if (opts.afterSeq !== undefined) {
      params.push(opts.afterSeq);
      where += ` AND seq > $${params.length}::bigint`;
    }
    return this.q.query<RecipientRow>(`SELECT * FROM campaign_recipients WHERE ${where} ORDER BY seq LIMIT $2`, params);
  }

  /** Moves a campaign from one of `from` to `to`; undefined when it was in none of them. */
  async transition(id: string, from: CampaignStatus[], to: CampaignStatus): Promise<CampaignRow | undefined> {
    const [row] = await this.q.query<CampaignRow>(
      `UPDATE campaigns SET status = $3, updated_at = now(),
         started_at = CASE WHEN $3 = 'running' THEN COALESCE(started_at, now()) ELSE started_at END,
         completed_at = CASE WHEN $3 IN ('completed', 'cancelled') THEN now() ELSE completed_at END
       WHERE id = $1 AND status = ANY($2::text[]) RETURNING *, ${POSITION_AT} AS position_at`,
      [id, from, to],
    );
    return row;
  }

  /** Recipients not yet sending go back to the queue (a pause), or are skipped with `reason` (a cancel). */
  async release(campaignId: string, skipReason?: string): Promise<number> {
    const rows = skipReason
      ? await this.q.query(
          `UPDATE campaign_recipients SET status = 'skipped', reason = $2, claimed_by = NULL, claimed_until = NULL, updated_at = now()
           WHERE campaign_id = $1 AND status IN ('queued', 'claimed', 'deferred') RETURNING seq`,
          [campaignId, skipReason],
        )
      : await this.q.query(
          `UPDATE campaign_recipients SET status = 'queued', claimed_by = NULL, claimed_until = NULL, updated_at = now()
           WHERE campaign_id = $1 AND status = 'claimed' RETURNING seq`,
          [campaignId],
        );
    return rows.length;
  }

  /** Scheduled campaigns whose time has come (each then starts with `transition`). */
  async due(): Promise<CampaignRow[]> {
    return this.q.query<CampaignRow>(`SELECT *, ${POSITION_AT} AS position_at FROM campaigns WHERE status = 'scheduled' AND schedule_at <= now()`);
  }

  async running(): Promise<CampaignRow[]> {
    return this.q.query<CampaignRow>(`SELECT *, ${POSITION_AT} AS position_at FROM campaigns WHERE status = 'running'`);
  }

  /**
   * Recipients whose replica's lease ran out: a claimed one was never sent and goes back to the queue; one that
   * was sending may have reached the provider and is `unknown` (never sent twice).
   */
  async recoverExpired(): Promise<{ requeued: number; unknown: number }> {
    const requeued = await this.q.query(
      `UPDATE campaign_recipients r SET status = CASE WHEN c.status = 'cancelled' THEN 'skipped' ELSE 'queued' END,
         reason = CASE WHEN c.status = 'cancelled' THEN 'cancelled' ELSE r.reason END, claimed_by = NULL, claimed_until = NULL, updated_at = now()
       FROM campaigns c WHERE c.id = r.campaign_id AND r.status = 'claimed' AND r.claimed_until < now() RETURNING r.seq`,
    );
    const unknown = await this.q.query(
      `UPDATE campaign_recipients SET status = 'unknown', reason = 'outcome_unknown', claimed_by = NULL, claimed_until = NULL, updated_at = now()
       WHERE status = 'sending' AND claimed_until < now() RETURNING seq`,
    );
    return { requeued: requeued.length, unknown: unknown.length };
  }

  /** Claims up to `limit` queued recipients of a running campaign for this replica (none another one holds). */
  async claim(campaignId: string, owner: string, limit: number): Promise<RecipientRow[]> {
    // the pick is an array computed once (as an IN (subquery ... LIMIT) it may run again per row and claim them
    // all), and the rows are then found by their primary key: joined to the pick as a table, a planner without the
    // table's statistics (a fresh campaign, no autovacuum yet) compared each of the campaign's queued rows with
    // each picked one (300,000 comparisons, 70-330 ms a claim in the bench). The picked rows are locked (FOR
    // UPDATE): still queued when updated.
    const rows = await this.q.query<RecipientRow>(
      `UPDATE campaign_recipients r SET status = 'claimed', claimed_by = $2, claimed_until = now() + make_interval(secs => $4), updated_at = now()
       WHERE r.campaign_id = $1 AND r.seq = ANY(ARRAY(
         SELECT seq FROM campaign_recipients WHERE campaign_id = $1 AND status = 'queued' ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED))
       RETURNING r.*`,
      [campaignId, owner, limit, CLAIM_LEASE_MS / 1000],
    );
    // in the order they were added, whatever order the UPDATE found them in
    return rows.sort((a, b) => Number(a.seq) - Number(b.seq));
  }

  /** The last step before the provider call: false when the recipient is no longer this replica's claim (paused, cancelled, lease lost). */
  async markSending(campaignId: string, seq: string, owner: string): Promise<boolean> {
    const rows = await this.q.query(
      `UPDATE campaign_recipients SET status = 'sending', updated_at = now()
       WHERE campaign_id = $1 AND seq = $2 AND status = 'claimed' AND claimed_by = $3 RETURNING seq`,
      [campaignId, seq, owner],
    );
    return rows.length === 1;
  }

  /** The batch's last step before its provider calls: the seqs still this replica's claim, now `sending`. */
  async markBatchSending(campaignId: string, seqs: string[], owner: string): Promise<Set<string>> {
    if (!seqs.length) return new Set();
    const rows = await this.q.query<{ seq: string }>(
      `UPDATE campaign_recipients SET status = 'sending', updated_at = now()
       WHERE campaign_id = $1 AND seq = ANY($2::bigint[]) AND status = 'claimed' AND claimed_by = $3 RETURNING seq`,
      [campaignId, seqs, owner],
    );
    return new Set(rows.map((r) => String(r.seq)));
  }

  /**
   * `markBatchSending` and `reserveSlots` of `n` slots in one statement (one round trip and one commit for the
   * batch's last step before its calls): the seqs still this replica's claim, now `sending`, and the slots.
   */
  async markSendingAndReserve(
    campaignId: string,
    seqs: string[],
    owner: string,
    slots: { phoneNumberId: string; n: number; baseIntervalMs: number },
  ): Promise<{ sending: Set<string>; firstInMs: number; intervalMs: number }> {
    const [row] = await this.q.query<{ seqs: string[]; first_in_ms: number; interval_ms: number }>(
      `WITH sending AS (
         UPDATE campaign_recipients SET status = 'sending', updated_at = now()
         WHERE campaign_id = $1 AND seq = ANY($2::bigint[]) AND status = 'claimed' AND claimed_by = $3 RETURNING seq),
       pace AS (${RESERVE_SLOTS('$4', '$5', '$6')})
       SELECT ARRAY(SELECT seq::text FROM sending) AS seqs, first_in_ms, interval_ms FROM pace`,
      [campaignId, seqs, owner, slots.phoneNumberId, slots.n, slots.baseIntervalMs],
    );
    return { sending: new Set(row.seqs.map(String)), firstInMs: Math.max(0, Number(row.first_in_ms)), intervalMs: Number(row.interval_ms) };
  }

  /**
   * Claims of this replica it will not send (claimed ahead, then paused, cancelled or stopping): back to the queue,
   * or skipped when the campaign was cancelled. Only those still this replica's claim.
   */
  async releaseClaims(campaignId: string, seqs: string[], owner: string, cancelled: boolean): Promise<void> {
    if (!seqs.length) return;
    await this.q.query(
      `UPDATE campaign_recipients SET status = $4, reason = CASE WHEN $4 = 'skipped' THEN 'cancelled' ELSE reason END,
         claimed_by = NULL, claimed_until = NULL, updated_at = now()
       WHERE campaign_id = $1 AND seq = ANY($2::bigint[]) AND status = 'claimed' AND claimed_by = $3`,
      [campaignId, seqs, owner, cancelled ? 'skipped' : 'queued'],
    );
  }

  /**
   * A batch's outcomes in one statement. A recipient a status webhook already moved on (delivered before its
   * `sent` was written) keeps that status; it gets its message id. `lastSend`: with `touchLastSend` in it.
   */
  async finishMany(campaignId: string, outcomes: Array<{ seq: string } & FinishOutcome>, opts: { lastSend?: boolean } = {}): Promise<void> {
    if (!outcomes.length) {
      if (opts.lastSend) await this.touchLastSend(campaignId);
      return;
    }
    // the rows by their primary key (the seqs again as an array): joined to the list alone, the planner read every
    // recipient of the campaign for each batch
    const update = `UPDATE campaign_recipients r SET
         status = CASE WHEN r.status IN ('delivered', 'read', 'failed') AND v.status = 'sent' THEN r.status ELSE v.status END,
         message_id = COALESCE(v.message_id, r.message_id), error_code = COALESCE(v.error_code, r.error_code), reason = v.reason,
         claimed_by = NULL, claimed_until = NULL, updated_at = now()
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::text[]) AS v(seq, status, message_id, error_code, reason)
       WHERE r.campaign_id = $1 AND r.seq = v.seq AND r.seq = ANY($2::bigint[])`;
    // `lastSend`: the campaign's last send time in the same statement (touchLastSend)
    await this.q.query(opts.lastSend ? `WITH done AS (${update} RETURNING 1) UPDATE campaigns SET last_send_at = now() WHERE id = $1` : update, [
      campaignId,
      outcomes.map((o) => o.seq),
      outcomes.map((o) => o.status),
      outcomes.map((o) => o.messageId ?? null),
      outcomes.map((o) => o.errorCode ?? null),
      outcomes.map((o) => o.reason ?? null),
    ]);
  }

  async finish(campaignId: string, seq: string, outcome: { status: RecipientStatus; messageId?: string; errorCode?: string; reason?: string }): Promise<void> {
    await this.q.query(
      `UPDATE campaign_recipients SET status = $3, message_id = COALESCE($4, message_id), error_code = $5, reason = $6,
         claimed_by = NULL, claimed_until = NULL, updated_at = now()
       WHERE campaign_id = $1 AND seq = $2`,
      [campaignId, seq, outcome.status, outcome.messageId ?? null, outcome.errorCode ?? null, outcome.reason ?? null],
    );
  }

  /** When the campaign last sent (once per batch): it completes 24 hours after, whatever statuses are missing. */
  async touchLastSend(campaignId: string): Promise<void> {
    await this.q.query(`UPDATE campaigns SET last_send_at = now() WHERE id = $1`, [campaignId]);
  }

  /** Skips the claimed recipients that are on the client's opt-out list; the skipped ones' seqs. */
  async skipOptedOut(campaignId: string, clientId: string, owner: string): Promise<Set<string>> {
    const rows = await this.q.query<{ seq: string }>(
      `UPDATE campaign_recipients r SET status = 'skipped', reason = 'opted_out', claimed_by = NULL, claimed_until = NULL, updated_at = now()
       FROM opt_outs o
       WHERE r.campaign_id = $1 AND r.status = 'claimed' AND r.claimed_by = $3 AND o.client_id = $2 AND o.user_id = r.to_user
       RETURNING r.seq`,
      [campaignId, clientId, owner],
    );
    return new Set(rows.map((r) => String(r.seq)));
  }

  /**
   * A status webhook of a campaign's message: delivered and read move a recipient forward, failed (with the
   * provider's error code) ends it. Returns the campaigns touched.
   */
  async applyStatus(messageId: string, status: string, errorCode: string | null): Promise<string[]> {
    if (!['delivered', 'read', 'failed'].includes(status)) return [];
    const from = status === 'delivered' ? ['sending', 'sent'] : status === 'read' ? ['sending', 'sent', 'delivered'] : ['sending', 'sent', 'delivered'];
    const rows = await this.q.query<{ campaign_id: string }>(
      `UPDATE campaign_recipients SET status = $2, error_code = COALESCE($4, error_code), updated_at = now()
       WHERE message_id = $1 AND status = ANY($3::text[]) RETURNING campaign_id`,
      [messageId, status, from, errorCode],
    );
    return rows.map((r) => r.campaign_id);
  }

  /**
   * `applyStatus` for many messages in one statement, each message at most once (an UPDATE … FROM applies one row
   * of the list per recipient: the caller applies a message's further statuses in later calls). Only delivered,
   * read and failed move a recipient; the others are left out by the caller.
   */
  async applyStatuses(updates: Array<{ messageId: string; status: string; errorCode: string | null }>): Promise<void> {
    if (!updates.length) return;
    await this.q.query(
      `UPDATE campaign_recipients r SET status = v.status, error_code = COALESCE(v.error_code, r.error_code), updated_at = now()
       FROM unnest($1::text[], $2::text[], $3::text[]) AS v(message_id, status, error_code)
       WHERE r.message_id = v.message_id AND r.message_id = ANY($1::text[])
         AND r.status = ANY(CASE WHEN v.status = 'delivered' THEN '{sending,sent}'::text[] ELSE '{sending,sent,delivered}'::text[] END)`,
      // the ids as an array too: the recipients are found by the message_id index, never by a scan joined to the list.
      // The statuses a recipient may leave as one array per list row, not an OR of the two cases: the same rows,
      // but PostgreSQL planned the OR in 0.19 ms (weighing the partial indexes on status for each arm) against
      // 0.06 ms, on every status batch of every webhook (issue 29)
      [updates.map((u) => u.messageId), updates.map((u) => u.status), updates.map((u) => u.errorCode)],
    );
  }

  /**
   * Statuses that overtook a send (the webhook arrived before the recipient had its message id, or before the
   * message record was stored: a campaign stores a batch's records when its calls are over) are taken from the
   * message records, with a failure's error code; a 131050 failure puts the recipient on the client's list, as
   * when the status comes after. `seqs`: only those recipients (a batch just finished), else the whole campaign.
   */
  async reconcileStatuses(campaignId: string, seqs?: string[]): Promise<number> {
    if (seqs && !seqs.length) return 0;
    // a batch's recipients by their primary key (`seq = ANY`, no OR beside it: that read the whole campaign)
    const rows = await this.q.query<{ seq: string; client_id: string; to_user: string; error_code: string | null }>(
      // a 131049 (the portfolio's messaging limit) is no failure of the recipient: deferred for 24 hours, as
      // PortfolioWindows.deferRefused does when the status comes after the record
      `UPDATE campaign_recipients r SET
         status = CASE WHEN m.status = 'failed' AND m.errors->0->>'code' = '131049' THEN 'deferred' ELSE m.status END,
         reason = CASE WHEN m.status = 'failed' AND m.errors->0->>'code' = '131049' THEN 'provider_131049' ELSE r.reason END,
         deferred_until = CASE WHEN m.status = 'failed' AND m.errors->0->>'code' = '131049' THEN now() + interval '24 hours' ELSE r.deferred_until END,
         error_code = CASE WHEN m.status = 'failed' THEN COALESCE(m.errors->0->>'code', r.error_code) ELSE r.error_code END, updated_at = now()
       FROM messages m
       WHERE r.campaign_id = $1 AND r.status = 'sent' AND r.message_id = m.id AND m.status IN ('delivered', 'read', 'failed')
         ${seqs ? 'AND r.seq = ANY($2::bigint[])' : ''}
       RETURNING r.seq, m.client_id, r.to_user, r.error_code`,
      seqs ? [campaignId, seqs] : [campaignId],
    );
    const optedOut = rows.filter((r) => r.error_code === '131050');
    for (const clientId of new Set(optedOut.map((r) => r.client_id)))
      await this.addOptOuts(
        clientId,
        optedOut.filter((r) => r.client_id === clientId).map((r) => r.to_user),
        'provider_131050',
      );
    return rows.length;
  }

  /**
   * A running campaign is completed when no recipient waits or is being sent and every sent one has an end
   * status, or 24 hours after its last send.
   */
  async completeIfDone(campaignId: string): Promise<CampaignRow | undefined> {
    const [row] = await this.q.query<CampaignRow>(
      `UPDATE campaigns c SET status = 'completed', completed_at = now(), updated_at = now()
       WHERE c.id = $1 AND c.status = 'running' AND (
         NOT EXISTS (SELECT 1 FROM campaign_recipients r WHERE r.campaign_id = c.id AND r.status IN ('queued', 'claimed', 'sending', 'deferred', 'sent'))
         OR (c.last_send_at < now() - interval '24 hours'
             AND NOT EXISTS (SELECT 1 FROM campaign_recipients r WHERE r.campaign_id = c.id AND r.status IN ('queued', 'claimed', 'sending', 'deferred'))))
       RETURNING *, ${POSITION_AT} AS position_at`,
      [campaignId],
    );
    return row;
  }

  // ---- opt-outs ----

  async addOptOuts(clientId: string, users: string[], source: string): Promise<number> {
    if (!users.length) return 0;
    const params: unknown[] = [clientId, source];
    const values = users.map((u) => {
      params.push(u);
      return `($1, $${params.length}, $2)`;
    });
    const rows = await this.q.query(
      `INSERT INTO opt_outs (client_id, user_id, source) VALUES ${values.join(', ')} ON CONFLICT DO NOTHING RETURNING user_id`,
      params,
    );
    return rows.length;
  }

  /** A 131050 failure of any message (a campaign's or the tenant's own) puts its recipient on the client's list. */
  async optOutRecipientOf(messageId: string): Promise<number> {
    const rows = await this.q.query(
      `INSERT INTO opt_outs (client_id, user_id, source)
       SELECT client_id, COALESCE(regexp_replace(to_number, '^\\+', ''), recipient), 'provider_131050' FROM messages
       WHERE id = $1 AND COALESCE(to_number, recipient) IS NOT NULL
       ON CONFLICT DO NOTHING RETURNING user_id`,
      [messageId],
    );
    return rows.length;
  }

  async removeOptOuts(clientId: string, users: string[]): Promise<number> {
    if (!users.length) return 0;
    const rows = await this.q.query(`DELETE FROM opt_outs WHERE client_id = $1 AND user_id = ANY($2::text[]) RETURNING user_id`, [clientId, users]);
    return rows.length;
  }

  async listOptOuts(
    clientId: string,
    limit: number,
    after?: { at: string; id: string },
  ): Promise<Array<{ user_id: string; source: string; created_at: Date; position_at: string }>> {
    return this.q.query(
      `SELECT user_id, source, created_at, ${POSITION_AT} AS position_at FROM opt_outs WHERE client_id = $1
         ${after ? 'AND (created_at, user_id) < ($3::timestamptz, $4)' : ''}
       ORDER BY created_at DESC, user_id DESC LIMIT $2`,
      after ? [clientId, limit, after.at, after.id] : [clientId, limit],
    );
  }

  // ---- pacing ----

  /**
   * Reserves `n` consecutive send slots of a business number, `intervalMs` apart (its rate, lowered while the
   * provider answers 130429), shared by every replica: answers how long until the first slot (ms) and the
   * interval to keep.
   */
  async reserveSlots(phoneNumberId: string, n: number, baseIntervalMs: number): Promise<{ firstInMs: number; intervalMs: number }> {
    // one statement: the row is created on a number's first batch, else locked and moved on by the upsert
    const [row] = await this.q.query<{ first_in_ms: number; interval_ms: number }>(RESERVE_SLOTS('$1', '$2', '$3'), [phoneNumberId, n, baseIntervalMs]);
    return { firstInMs: Math.max(0, Number(row.first_in_ms)), intervalMs: Number(row.interval_ms) };
  }

  /** The provider's 130429: the number's pace halves (down to a twentieth) and nothing is sent for `pauseMs`. */
  async throttle(phoneNumberId: string, pauseMs: number): Promise<void> {
    await this.q.query(
      `UPDATE number_pace SET factor = GREATEST(0.05, factor / 2), next_at = GREATEST(next_at, clock_timestamp() + make_interval(secs => $2::double precision / 1000))
       WHERE phone_number_id = $1`,
      [phoneNumberId, pauseMs],
    );
  }

  /** A batch went through without a 130429: the pace recovers a tenth of the way back. */
  async recover(phoneNumberId: string): Promise<void> {
    await this.q.query(`UPDATE number_pace SET factor = LEAST(1, factor * 1.1) WHERE phone_number_id = $1 AND factor < 1`, [phoneNumberId]);
  }
}
