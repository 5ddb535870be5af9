import { GraphError } from './errors';
import type { SimState } from './state';

interface Bucket {
  tokens: number;
  at: number;
}

/** Send attempts kept per number for `GET /_sim/phone-numbers/:id/sends` (the newest). */
const MAX_LOGGED_SENDS = 100_000;

/** One send attempt as it arrived: when (simulator ms), to whom, and whether the throughput check let it through. */
export interface SendArrival {
  at: number;
  to: string;
  accepted: boolean;
}

/**
 * The per-number throughput limit (130429): never more than the number's messages per second in any one-second
 * window (a number's own limit, `PUT /_sim/phone-numbers/:id/throughput`, else the simulator's), and the pair
 * rate limit (131056, a token bucket), §8. Every send attempt that reaches the check is logged with its arrival time.
 */
export class RateLimiter {
  private readonly phone = new Map<string, number[]>();
  private readonly pair = new Map<string, Bucket>();
  readonly arrivals = new Map<string, SendArrival[]>();

  constructor(private readonly state: SimState) {}

  check(phoneId: string, to: string): void {
    const perSecond = this.state.phoneThroughput.get(phoneId) ?? this.state.rateLimits.throughputPerSecond;
    const now = Date.now();
    const log = this.arrivals.get(phoneId) ?? [];
    this.arrivals.set(phoneId, log);
    if (log.length >= MAX_LOGGED_SENDS) log.splice(0, log.length - MAX_LOGGED_SENDS + 1);
    if (perSecond !== null && !withinWindow(this.phone, phoneId, perSecond, now)) {
      log.push({ at: now, to, accepted: false });
      throw new GraphError(400, 130429, '(#130429) Rate limit hit', {
        subcode: 2494055,
        details: 'Message failed to send because there were too many messages sent from this phone number in a short period of time',
      });
    }
    log.push({ at: now, to, accepted: true });
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

/** Whether one more send fits the last second's `perSecond` (a sliding window of accepted sends' times). */
function withinWindow(windows: Map<string, number[]>, key: string, perSecond: number, now: number): boolean {
  const times = (windows.get(key) ?? []).filter((t) => t > now - 1000);
  windows.set(key, times);
  if (times.length >= perSecond) return false;
  times.push(now);
  return true;
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
