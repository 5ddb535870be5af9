import { SimControl } from '@gateway/testing';
import { startProviderSim, type RunningProviderSim } from './server';

describe("the simulator's request log", () => {
  let sim: RunningProviderSim;
  let control: SimControl;
  beforeAll(async () => {
    sim = await startProviderSim({ port: 0, appId: 'app', appSecret: 's', verifyToken: 'v', configId: 'c', requestLogMax: 10 });
    control = new SimControl(sim.url);
  });
  afterAll(() => sim.stop());

  /** A Graph call (to no route: answered 400, recorded all the same). */
  const graph = (i: number) => fetch(`${sim.url}/v23.0/request-${i}`).then((r) => r.text());
  const log = async () => {
    const { calls, dropped } = await control.requestLog();
    return { dropped, paths: calls.map((c) => c.path) };
  };

  it('keeps the newest requests up to its size, oldest first, and counts the ones it let go until emptied', async () => {
    for (let i = 1; i <= 25; i++) await graph(i);
    const full = await log();
    // the oldest tenth goes when the log is full: 25 requests leave the newest 10 or fewer, never a newer one dropped
    expect(full.paths.length).toBeGreaterThan(0);
    expect(full.paths.length).toBeLessThanOrEqual(10);
    expect(full.dropped).toBe(25 - full.paths.length);
    expect(full.paths).toEqual(Array.from({ length: full.paths.length }, (_, k) => `/v23.0/request-${25 - full.paths.length + k + 1}`));
    expect((await control.requestLog({ pathContains: 'request-25' })).calls.map((c) => c.path)).toEqual(['/v23.0/request-25']);

    await control.reset();
    await graph(26);
    expect(await log()).toEqual({ dropped: 0, paths: ['/v23.0/request-26'] });
  });
});
