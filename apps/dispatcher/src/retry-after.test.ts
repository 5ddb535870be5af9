import { parseRetryAfter } from './webhook-sender';

describe('Retry-After of a 429/503 answer', () => {
  const now = Date.parse('2026-11-23T08:00:00Z');
  it('reads delay-seconds and HTTP dates, in ms from now', () => {
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter(' 120 ', now)).toBe(120_000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 08:00:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Mon, 23 Nov 2026 07:59:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(['3', '9'], now)).toBe(3000);
  });
  it('ignores what it cannot read (the schedule applies)', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-1', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});
