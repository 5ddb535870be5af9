import { DepartureWindow, pacingWindowMs } from './departure-window';

/** Starts `n` calls 10 ms apart from `t0`, each answered `rtt` ms after it started; answers their departures. */
function calls(w: DepartureWindow, t0: number, n: number, rtt: number): number[] {
  const starts: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = t0 + i * 10;
    w.record(at, true)(at + rtt);
    starts.push(at);
  }
  return starts;
}

describe('a number’s window of provider calls in one process', () => {
  it('starts at most `limit` calls within one second plus its margin', () => {
    const w = new DepartureWindow(4);
    calls(w, 0, 4, 2);
    // the oldest of the four started at 0: the fifth waits for the window past it
    expect(w.waitMs(30)).toBe(pacingWindowMs(4) - 30);
    expect(w.waitMs(pacingWindowMs(4))).toBe(0);
  });

  it('costs nothing while the round trips stay within the margin of their shortest', () => {
    const limit = 250;
    const w = new DepartureWindow(limit);
    calls(w, 0, limit - 1, 2);
    // the last one's answer took 25 ms longer than the shortest (2 ms): within the 40 ms margin less the 10 ms slack
    const lastStart = (limit - 1) * 10;
    w.record(lastStart, true)(lastStart + 27);
    for (let i = 0; i < limit - 1; i++) w.record(i * 10 + pacingWindowMs(limit), true)(i * 10 + pacingWindowMs(limit) + 2);
    expect(w.waitMs(lastStart + pacingWindowMs(limit))).toBe(0);
  });

  it('holds the call `limit` places after one whose answer was late beyond the margin, by what it was late', () => {
    const limit = 250;
    const w = new DepartureWindow(limit);
    // 249 calls answered in 2 ms, then one answered 400 ms after it started (a stall on its way: it may have
    // arrived as late as 398 ms after its start)
    calls(w, 0, limit - 1, 2);
    const lastStart = (limit - 1) * 10;
    w.record(lastStart, true)(lastStart + 400);
    // the 250 calls after them, each as soon as the window lets it
    let now = 0;
    for (let i = 0; i < limit - 1; i++) {
      now = Math.max(now, i * 10 + pacingWindowMs(limit));
      expect(w.waitMs(now)).toBe(0);
      w.record(now, true)(now + 2);
    }
    // the 250th after them: the window alone would let it go 1,040 ms after the late call's start; its answer holds
    // it until 1,000 ms (and a 10 ms slack) after the latest it can have arrived (the answer less the shortest round trip)
    now = lastStart + pacingWindowMs(limit);
    expect(w.waitMs(now)).toBe(lastStart + 400 - 2 + 1000 + 10 - now);
  });

  it('holds the call `limit` places after one still on its way, until it is answered', () => {
    const w = new DepartureWindow(2);
    const first = w.record(0, true);
    w.record(10, true)(12);
    const later = pacingWindowMs(2) + 10;
    // not answered yet: looked at again shortly
    expect(w.waitMs(later)).toBeGreaterThan(0);
    first(500);
    expect(w.waitMs(later)).toBe(0);
  });

  it('is not held by a call still unanswered after the hold (a provider timeout), nor by one that was not made', () => {
    const w = new DepartureWindow(2);
    w.record(0, true);
    w.record(10, true)(12);
    expect(w.waitMs(3_000)).toBe(0);

    const v = new DepartureWindow(4);
    v.record(0, true)();
    calls(v, 10, 3, 2);
    expect(v.waitMs(pacingWindowMs(4))).toBe(0);
  });

  it("counts a tenant's own send by its start only (its answer is not followed)", () => {
    const w = new DepartureWindow(1);
    w.record(0);
    expect(w.waitMs(pacingWindowMs(1) - 1)).toBe(1);
    expect(w.waitMs(pacingWindowMs(1))).toBe(0);
  });

  it('keeps the most recent starts when the number’s limit changes', () => {
    const w = new DepartureWindow(4);
    calls(w, 0, 4, 2);
    w.setLimit(2);
    // the two newest started at 20 and 30: a third waits for the window past 20
    expect(w.waitMs(100)).toBe(20 + pacingWindowMs(2) - 100);
    w.setLimit(8);
    expect(w.waitMs(100)).toBe(0);
  });

  it('ignores an answer for a place a later call has taken', () => {
    const w = new DepartureWindow(1);
    const late = w.record(0, true);
    // its hold ran out; the next call takes the place
    const now = pacingWindowMs(1);
    expect(w.waitMs(now)).toBe(0);
    w.record(now, true)(now + 2);
    late(now + 5_000);
    expect(w.waitMs(now + pacingWindowMs(1))).toBe(0);
  });

  describe("a tenant's own send (`takeFirst`)", () => {
    beforeEach(() => jest.useFakeTimers({ now: 100_000 }));
    afterEach(() => jest.useRealTimers());

    it('takes a free place at once, with no promise', () => {
      const w = new DepartureWindow(4);
      const d = w.takeFirst();
      expect(typeof d).toBe('function');
    });

    it('waits for a place of a full window, ahead of the campaign call waiting for it, and is followed by its answer', async () => {
      const w = new DepartureWindow(4);
      const t0 = Date.now();
      // the campaign filled the window: four calls 10 ms apart, a second ago
      calls(w, t0 - 1000, 4, 2);
      const order: string[] = [];
      const campaign = w.take(() => false).then((d) => (order.push('campaign'), d));
      const single = Promise.resolve(w.takeFirst()).then((d) => (order.push('single'), d));
      // the window's oldest start (t0 - 1000) leaves it after pacingWindowMs: not before
      await jest.advanceTimersByTimeAsync(pacingWindowMs(4) - 1001);
      expect(order).toEqual([]);
      await jest.advanceTimersByTimeAsync(1);
      // the single send took that place; the campaign waits for the next (10 ms later)
      expect(order).toEqual(['single']);
      const leftAt = Date.now();
      (await single)(leftAt + 2);
      await jest.advanceTimersByTimeAsync(10);
      expect(order).toEqual(['single', 'campaign']);
      // every place taken again, the single send's the oldest: the next call waits for the window past its start
      w.record(Date.now(), true)(Date.now() + 2);
      w.record(Date.now(), true)(Date.now() + 2);
      (await campaign)!(Date.now() + 2);
      expect(w.waitMs(Date.now())).toBe(leftAt + pacingWindowMs(4) - Date.now());
    });

    it('goes after at most its longest wait (tenant sends beyond the number’s rate on their own are not queued)', async () => {
      const w = new DepartureWindow(2);
      const t0 = Date.now();
      calls(w, t0, 2, 2);
      let left = false;
      void Promise.resolve(w.takeFirst(200)).then(() => (left = true));
      await jest.advanceTimersByTimeAsync(199);
      expect(left).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      expect(left).toBe(true);
    });
  });
});
