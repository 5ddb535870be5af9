import { MESSAGING_LIMIT_TIERS, MessagingLimits } from './messaging-limits';
import { SimState } from './state';

describe("the simulator's portfolio messaging limit", () => {
  it('lets at most the limit of new users in per rolling 24 hours, per portfolio; a user already reached costs nothing', () => {
    const state = new SimState();
    const limits = new MessagingLimits(state);
    // off until a test sets it
    expect(Array.from({ length: 300 }, (_, i) => limits.admit('open', `1650555${i}`)).every(Boolean)).toBe(true);
    limits.set('b1', 2);
    expect(['+16505550001', '16505550002', '16505550003', '+1 650 555 0001', 'US.123'].map((u) => limits.admit('b1', u))).toEqual([
      true,
      true,
      false,
      true,
      false,
    ]);
    expect(limits.used('b1')).toBe(2);
    expect(limits.admit('b2', '16505550003')).toBe(true);
    // a day later the window has freed
    state.clockOffsetMs += 24 * 3600_000 + 1;
    expect(limits.used('b1')).toBe(0);
    expect(limits.admit('b1', '16505550003')).toBe(true);
    limits.set('b1', MESSAGING_LIMIT_TIERS.TIER_UNLIMITED);
    expect(limits.admit('b1', 'US.123')).toBe(true);
    expect(MESSAGING_LIMIT_TIERS).toMatchObject({ TIER_250: 250, TIER_2K: 2000, TIER_10K: 10_000, TIER_100K: 100_000 });
  });
});
