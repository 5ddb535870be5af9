import type { Logger } from '@gateway/logger';
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
});
