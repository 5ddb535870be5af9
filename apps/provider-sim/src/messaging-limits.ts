import { normalize, type SimState } from './state';

/** The provider's messaging-limit tiers: unique users a portfolio may reach in a rolling 24 hours (provider-2026.md §5). */
export const MESSAGING_LIMIT_TIERS: Record<string, number | null> = {
  TIER_50: 50,
  TIER_250: 250,
  TIER_1K: 1000,
  TIER_2K: 2000,
  TIER_10K: 10_000,
  TIER_100K: 100_000,
  TIER_UNLIMITED: null,
};

const DAY_MS = 24 * 3600_000;

/**
 * The business portfolio's messaging limit (provider-2026.md §5, provider-cloud-api.md §8): business-initiated
 * messages reach at most `limit` unique users outside a service window in any rolling 24 hours, every number of
 * the portfolio together. Off (unlimited) until a test sets a portfolio's tier. The provider has no dedicated
 * refusal: the send is accepted and then fails with 131049 (a `failed` status webhook), as the reference names it.
 */
export class MessagingLimits {
  /** businessId → unique users per 24 h (absent: unlimited). */
  readonly limits = new Map<string, number>();
  /** businessId → user → last business-initiated send counted (simulator ms). */
  private readonly reach = new Map<string, Map<string, number>>();

  constructor(private readonly state: SimState) {}

  set(businessId: string, limit: number | null): void {
    if (limit === null) this.limits.delete(businessId);
    else this.limits.set(businessId, limit);
  }

  /** The users counted in the portfolio's window now. */
  used(businessId: string): number {
    const now = this.state.now();
    const users = this.reach.get(businessId);
    if (!users) return 0;
    for (const [u, at] of users) if (at <= now - DAY_MS) users.delete(u);
    return users.size;
  }

  /**
   * A business-initiated send to `user` (outside its service window): whether it fits the portfolio's limit. A
   * user already reached in the window costs nothing more; a new one is counted when it fits.
   */
  admit(businessId: string, user: string): boolean {
    const limit = this.limits.get(businessId);
    // a BSUID as it is, a phone number by its digits
    const key = /^[A-Z]{2}\./.test(user) ? user : normalize(user);
    const now = this.state.now();
    const users = this.reach.get(businessId) ?? new Map<string, number>();
    this.reach.set(businessId, users);
    const known = users.get(key);
    if (known !== undefined && known > now - DAY_MS) {
      users.set(key, now);
      return true;
    }
    if (limit !== undefined && this.used(businessId) >= limit) return false;
    users.set(key, now);
    return true;
  }
}
