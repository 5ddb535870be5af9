import type { Logger } from '@gateway/logger';
import type { Db, Queryable } from '@gateway/store';
import { normalizeUser } from './campaigns';

/*
 * The business portfolio's messaging limit (issue 26; provider-2026.md §5, provider-cloud-api.md §8): business-
 * initiated messages reach at most so many unique users in any rolling 24 hours, every number of the portfolio
 * together (250, 2,000, 10,000, 100,000 or unlimited). A campaign keeps within it: each batch takes its share of the
 * portfolio's window before it is sent, and the recipients beyond it wait (`deferred`) until the window frees.
 */

/** The provider's refusal for the limit: a template accepted, then `failed` with 131049 (no dedicated code, §5). */
export const MESSAGING_LIMIT_REFUSAL = 131049;
/** Why a recipient waits: the portfolio's window is full (the gateway's count), or the provider refused (131049). */
export const DEFERRED_BY_LIMIT = 'messaging_limit';
export const DEFERRED_BY_PROVIDER = 'provider_131049';

const TIERS: Record<string, number | undefined> = {
  TIER_50: 50,
  TIER_250: 250,
  TIER_1K: 1000,
  TIER_2K: 2000,
  TIER_10K: 10_000,
  TIER_100K: 100_000,
  TIER_UNLIMITED: undefined,
};

/**
 * Unique users per 24 hours the client's portfolio may reach: its `messaging_limit` (a tier the provider reported,
 * or the number of `max_daily_conversations_per_business`), undefined when unlimited or not reported (the
 * provider's 131049 then defers). The one place that reads it.
 */
export function messagingLimitOf(client: object): number | undefined {
  const raw = (client as { messagingLimit?: unknown }).messagingLimit;
  if (typeof raw !== 'string' || !raw) return undefined;
  if (raw in TIERS) return TIERS[raw];
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** The window's key: the client's business portfolio, else its business account, else its number. */
export function portfolioOf(client: { providerBusinessId?: string; businessAccountId?: string; phoneNumberId?: string; id: string }): string {
  return client.providerBusinessId || client.businessAccountId || client.phoneNumberId || client.id;
}

/** The portfolio windows and the deferred recipients of campaigns (migration 52). */
export class PortfolioWindows {
  constructor(private readonly db: Db) {}

  /**
   * A batch's share of the portfolio's window: users it reached in the last 24 hours cost nothing more, new ones
   * fit while fewer than `limit` are in it (in the batch's order). Answers the users that may be sent now (counted
   * at once, whatever then becomes of their send) and when the window next frees. Replicas take their shares one
   * after the other (the portfolio's row is locked).
   */
  async take(portfolioId: string, limit: number, users: string[]): Promise<{ allowed: Set<string>; freesAt: Date }> {
    return this.db.tx(async (q) => {
      await q.query(`INSERT INTO portfolio_windows (portfolio_id) VALUES ($1) ON CONFLICT DO NOTHING`, [portfolioId]);
      await q.query(`SELECT portfolio_id FROM portfolio_windows WHERE portfolio_id = $1 FOR UPDATE`, [portfolioId]);
      await q.query(`DELETE FROM portfolio_reach WHERE portfolio_id = $1 AND last_at <= now() - interval '24 hours'`, [portfolioId]);
      const known = new Set(
        (
          await q.query<{ user_id: string }>(`SELECT user_id FROM portfolio_reach WHERE portfolio_id = $1 AND user_id = ANY($2::text[])`, [portfolioId, users])
        ).map((r) => r.user_id),
      );
      const [w] = await q.query<{ used: number; oldest: Date | null }>(
        `SELECT count(*)::int AS used, min(last_at) AS oldest FROM portfolio_reach WHERE portfolio_id = $1`,
        [portfolioId],
      );
      let room = limit - Number(w.used);
      const allowed = new Set<string>();
      for (const u of users) {
        if (known.has(u)) allowed.add(u);
        else if (room > 0) {
          allowed.add(u);
          room -= 1;
        }
      }
      if (allowed.size) {
        await q.query(
          `INSERT INTO portfolio_reach (portfolio_id, user_id, last_at) SELECT $1, u, now() FROM unnest($2::text[]) AS u
           ON CONFLICT (portfolio_id, user_id) DO UPDATE SET last_at = now()`,
          [portfolioId, [...allowed]],
        );
      }
      const oldest = w.oldest ? new Date(w.oldest).getTime() : Date.now();
      return { allowed, freesAt: new Date(oldest + 24 * 3600_000) };
    });
  }

  /**
   * A template of the tenant's own (`send-template`) reaches its user: counted in the portfolio's window when the
   * client has a limit, so campaigns leave the room it took (the send itself is the provider's to refuse; not
   * awaited by it).
   */
  noteSend(client: Parameters<typeof portfolioOf>[0] & { messagingLimit?: string }, user: string, logger: Logger): void {
    if (messagingLimitOf(client) === undefined) return;
    this.db
      .query(
        `INSERT INTO portfolio_reach (portfolio_id, user_id, last_at) VALUES ($1, $2, now())
         ON CONFLICT (portfolio_id, user_id) DO UPDATE SET last_at = now()`,
        [portfolioOf(client), normalizeUser(user)],
      )
      .catch((e: unknown) => logger.warn({ err: e }, "a tenant's template could not be counted in the portfolio's window"));
  }

  /** Users in the portfolio's window now. */
  async used(portfolioId: string, q: Queryable = this.db): Promise<number> {
    const [r] = await q.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM portfolio_reach WHERE portfolio_id = $1 AND last_at > now() - interval '24 hours'`,
      [portfolioId],
    );
    return Number(r.n);
  }

  /** Recipients of this replica's claim that wait for the window to free (never called for). */
  async defer(campaignId: string, seqs: string[], until: Date, owner: string): Promise<void> {
    if (!seqs.length) return;
    await this.db.query(
      `UPDATE campaign_recipients SET status = 'deferred', reason = $4, deferred_until = $3, claimed_by = NULL, claimed_until = NULL, updated_at = now()
       WHERE campaign_id = $1 AND seq = ANY($2::bigint[]) AND status = 'claimed' AND claimed_by = $5`,
      [campaignId, seqs, until, DEFERRED_BY_LIMIT, owner],
    );
  }

  /**
   * The provider's 131049 for a campaign's message: the recipient was not reached and waits 24 hours (the
   * reference's advice) instead of failing. False when the message is no campaign's (or not yet recorded on it).
   */
  async deferRefused(messageId: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE campaign_recipients SET status = 'deferred', reason = $2, error_code = $3, deferred_until = now() + interval '24 hours', updated_at = now()
       WHERE message_id = $1 AND status IN ('sending', 'sent', 'delivered') RETURNING seq`,
      [messageId, DEFERRED_BY_PROVIDER, String(MESSAGING_LIMIT_REFUSAL)],
    );
    return rows.length > 0;
  }

  /**
   * Refusals that overtook their send (the failed status arrived before the recipient had its message id): taken
   * from the message records, as reconcileStatuses does for the other statuses.
   */
  async deferRefusedOf(campaignId: string): Promise<number> {
    const rows = await this.db.query(
      `UPDATE campaign_recipients r SET status = 'deferred', reason = $2, error_code = $3, deferred_until = now() + interval '24 hours', updated_at = now()
       FROM messages m
       WHERE r.campaign_id = $1 AND r.status = 'sent' AND r.message_id = m.id AND m.status = 'failed' AND m.errors->0->>'code' = $3
       RETURNING r.seq`,
      [campaignId, DEFERRED_BY_PROVIDER, String(MESSAGING_LIMIT_REFUSAL)],
    );
    return rows.length;
  }

  /**
   * Deferred recipients whose time came go back to the queue, and, while the portfolio's window has room (it
   * freed, or the limit rose: `limit` undefined is none), as many of those the gateway's count deferred.
   */
  async release(campaignId: string, portfolioId: string, limit: number | undefined): Promise<number> {
    const due = await this.db.query(
      `UPDATE campaign_recipients SET status = 'queued', reason = NULL, deferred_until = NULL, updated_at = now()
       WHERE campaign_id = $1 AND status = 'deferred' AND COALESCE(deferred_until, updated_at + interval '24 hours') <= now() RETURNING seq`,
      [campaignId],
    );
    const [{ waiting }] = await this.db.query<{ waiting: number }>(
      `SELECT count(*)::int AS waiting FROM campaign_recipients WHERE campaign_id = $1 AND status = 'deferred' AND reason = $2`,
      [campaignId, DEFERRED_BY_LIMIT],
    );
    if (!Number(waiting)) return due.length;
    const room = limit === undefined ? Number(waiting) : Math.max(0, limit - (await this.used(portfolioId)));
    if (!room) return due.length;
    const freed = await this.db.query(
      `WITH picked AS MATERIALIZED (
         SELECT seq FROM campaign_recipients WHERE campaign_id = $1 AND status = 'deferred' AND reason = $2 ORDER BY seq LIMIT $3)
       UPDATE campaign_recipients r SET status = 'queued', reason = NULL, deferred_until = NULL, updated_at = now()
       FROM picked WHERE r.campaign_id = $1 AND r.seq = picked.seq AND r.status = 'deferred' RETURNING r.seq`,
      [campaignId, DEFERRED_BY_LIMIT, room],
    );
    return due.length + freed.length;
  }
}
