import type { Logger } from '@gateway/logger';
import { Metrics } from '@gateway/runtime';
import type { Db } from '@gateway/store';
import { DepartureWindow, pacingWindowMs } from './departure-window';
import { NumberShare } from './priority';

/** The share's database: only its slot pushes reach it here (their SQL is pinned by the campaign e2e tests). */
const db = { query: async () => [] } as unknown as Db;
const logger = { warn: () => undefined } as unknown as Logger;

describe("the tenant's own sends on a number a campaign is sending on", () => {
  it('take a place in the campaign’s window, and their answer bounds the call `limit` places later as a campaign call’s does', async () => {
    const limit = 100;
    const w = new DepartureWindow(limit);
    const share = new NumberShare(db, logger);
    share.attach(new Map([['p1', w]]));
    // no campaign on the number: nothing to yield, nothing recorded
    expect(share.singleSend('p1')).toBeUndefined();
    share.enter('p1', 1000 / limit);

    // a campaign call answered in 2 ms (the shortest round trip), then the tenant's send, answered 600 ms after its
    // start (delayed on its way by up to that much: beyond the window's 40 ms margin)
    const t0 = Date.now();
    w.record(t0 - 20, true)(t0 - 18);
    const answered = await share.singleSend('p1');
    expect(answered).toBeDefined();
    const start = Date.now();
    answered!(start + 600);
    // the campaign's next calls, each answered in 2 ms, up to the place after the tenant's send
    for (let i = 0; i < limit - 1; i++) w.record(start, true)(start + 2);
    // the call `limit` places after the tenant's send: the window alone lets it go 1,040 ms after that send's start;
    // its answer holds it until 1 s after the latest the send can have arrived (the answer less the shortest round
    // trip), and the 10 ms slack
    const at = start + pacingWindowMs(limit);
    expect(w.waitMs(at)).toBe(start + 600 - 2 + 1000 + 10 - at);
  });

  it('count how long they waited for their place in `campaign_yield_wait_seconds` (0 when the window had room)', async () => {
    const metrics = new Metrics('messaging');
    const w = new DepartureWindow(100);
    const share = new NumberShare(db, logger, metrics);
    share.attach(new Map([['p1', w]]));
    // no campaign on the number: not counted (nothing was yielded)
    share.singleSend('p1');
    share.enter('p1', 10);
    // room in the window: a place at once
    expect(typeof share.singleSend('p1')).toBe('function');
    // the window full of calls started 1,000 ms ago: the next place is free 40 ms from now (its margin)
    const now = Date.now();
    for (let i = 0; i < 100; i++) w.record(now - 1000);
    const waited = share.singleSend('p1');
    expect(waited).toBeInstanceOf(Promise);
    await waited;
    const [family] = (await metrics.registry.getMetricsAsJSON()).filter((m) => m.name === 'campaign_yield_wait_seconds');
    const value = (name: string) => (family.values as Array<{ metricName?: string; value: number }>).find((v) => v.metricName === name)?.value;
    expect(value('campaign_yield_wait_seconds_count')).toBe(2);
    // the wait of the second, at least until its place was free (a timer may fire a millisecond early)
    expect(value('campaign_yield_wait_seconds_sum')).toBeGreaterThanOrEqual(0.035);
  });
});
