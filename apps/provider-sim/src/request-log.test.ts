import { startProviderSim, type RunningProviderSim } from './server';

describe("the simulator's request log", () => {
  let sim: RunningProviderSim;
  beforeAll(async () => {
    sim = await startProviderSim({ port: 0, appId: 'app', appSecret: 's', verifyToken: 'v', configId: 'c', requestLogMax: 10 });
  });
  afterAll(() => sim.stop());

  const graph = (i: number) => fetch(`${sim.url}/v23.0/request-${i}`).then((r) => r.text());
  const log = async () => {
    const res = await fetch(`${sim.url}/_sim/requests`);
    return { dropped: Number(res.headers.get('x-sim-requests-dropped')), paths: ((await res.json()) as Array<{ path: string }>).map((r) => r.path) };
  };

  it('keeps the newest requests up to its size, oldest first, and counts the ones it let go until emptied', async () => {
    for (let i = 1; i <= 25; i++) await graph(i);
    const full = await log();
    // the oldest tenth goes when the log is full: 25 requests leave the newest 10 or fewer, never a newer one dropped
    expect(full.paths.length).toBeGreaterThan(0);
    expect(full.paths.length).toBeLessThanOrEqual(10);
    expect(full.dropped).toBe(25 - full.paths.length);
    expect(full.paths).toEqual(Array.from({ length: full.paths.length }, (_, k) => `/v23.0/request-${25 - full.paths.length + k + 1}`));

    const emptied = await fetch(`${sim.url}/_sim/requests`, { method: 'DELETE' });
    expect(emptied.status).toBe(204);
    await graph(26);
    expect(await log()).toEqual({ dropped: 0, paths: ['/v23.0/request-26'] });
  });
});
