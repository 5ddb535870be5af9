import { GraphError } from './errors';
import type { SimState } from './state';

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets for the per-number throughput limit (130429) and the pair rate limit (131056), §8. */
export class RateLimiter {
  private readonly phone = new Map<string, Bucket>();
  private readonly pair = new Map<string, Bucket>();

  constructor(private readonly state: SimState) {}

  check(phoneId: string, to: string): void {
    const perSecond = this.state.rateLimits.throughputPerSecond;
    if (perSecond !== null && !take(this.phone, phoneId, perSecond, perSecond)) {
      throw new GraphError(400, 130429, '(#130429) Rate limit hit', {
        subcode: 2494055,
        details: 'Message failed to send because there were too many messages sent from this phone number in a short period of time',
      });
    }
    // one message per 6 s to the same user, with a burst of 45 borrowed against that budget
    if (this.state.rateLimits.pairRate && !take(this.pair, `${phoneId}:${to.replace(/^\+/, '')}`, 45, 1 / 6)) {
      throw new GraphError(400, 131056, '(#131056) (Business Account, Consumer Account) pair rate limit hit', {
        details: 'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time',
      });
    }
  }

  reset(): void {
    this.phone.clear();
    this.pair.clear();
  }
}

function take(buckets: Map<string, Bucket>, key: string, capacity: number, refillPerSecond: number): boolean {
  const now = Date.now();
  const b = buckets.get(key) ?? { tokens: capacity, at: now };
  b.tokens = Math.min(capacity, b.tokens + ((now - b.at) / 1000) * refillPerSecond);
  b.at = now;
  buckets.set(key, b);
  if (b.tokens < 1) return false;
  b.tokens -= 1;
  return true;
}
