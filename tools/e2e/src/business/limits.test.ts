import { readConfig, startEdge, type RunningEdge } from '@gateway/app-edge';
import { ApiClient, startStack, type ApiResponse, type Stack } from '@gateway/test-stack';
import { freePort, SimControl } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/** Small limits, so a test reaches each one in a few requests (PLANS of the tenant directory). */
const PLANS = {
  free: { max_clients: 1, sends_per_day: 5, sends_per_second: 1, campaigns_per_day: 1, requests_per_second: 4 },
  standard: { max_clients: 10, sends_per_day: 10_000, sends_per_second: 20, campaigns_per_day: 10, requests_per_second: 50 },
};

const policyNames = (res: ApiResponse<unknown>) => [...(res.headers.get('ratelimit-policy') ?? '').matchAll(/"([a-z_]+)";q=\d+;w=\d+/g)].map((m) => m[1]);

function expectLimited(res: ApiResponse<unknown>, code: string) {
  expect([res.status, (res.json as any)?.code]).toEqual([429, code]);
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('ratelimit-policy')).toMatch(/^"[a-z_]+";q=\d+;w=\d+(, "[a-z_]+";q=\d+;w=\d+)*$/);
  expect(res.headers.get('ratelimit')).toMatch(/^"[a-z_]+";r=\d+;t=\d+(, "[a-z_]+";r=\d+;t=\d+)*$/);
}

/**
 * Plans, quotas and rate limits at the edge (issue 28): a `free` tenant's limits through two edge replicas over
 * one tenant directory, its requests alternating between them. The counters are the directory's, so the two
 * replicas together accept exactly what the plan allows (each alone would accept it again).
 */
describe('plans, quotas and rate limits across two edge replicas', () => {
  let stack: Stack;
  let second: RunningEdge;
  let sim: SimControl;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], env: { PLANS: JSON.stringify(PLANS) } });
    second = await startEdge(readConfig({ ...stack.env, PORT: String(await freePort()) }), stack.logger.child({ svc: 'edge-2' }));
    sim = new SimControl(stack.sim!.url);
  }, 90_000);
  afterAll(async () => {
    await second?.stop();
    await stack?.stop();
  });

  /** The tenant's key on both replicas: the i-th request goes to replica i % 2. */
  const replicas = (apiKey: string) => [stack.api(apiKey), new ApiClient(second.url, apiKey)];

  /** Retried while a per-second rate refuses it (after its Retry-After): what the request gets past the rates. */
  async function pastRates(call: () => Promise<ApiResponse<unknown>>): Promise<ApiResponse<unknown>> {
    for (;;) {
      const res = await call();
      if (res.status !== 429 || (res.json as any).code !== 'rate_limited') return res;
      expectLimited(res, 'rate_limited');
      // what the answer asks of a client: the window it names must end first
      await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after')) * 1000));
    }
  }

  it('a plan outside the catalogue is a 422 naming plan; the default plan is standard', async () => {
    const res = await stack.admin().post('/admin/tenants', { name: 'X', email: 'x@x.test', plan: 'platinum' });
    expect(res.status).toBe(422);
    expect((res.json as any).detail).toEqual([expect.objectContaining({ loc: ['body', 'plan'] })]);
    const { tenant } = await stack.createTenant({ name: 'Default' });
    expect(tenant.plan).toBe('standard');
  });

  it('the client limit: the second client is a 429 quota_exceeded on the other replica', async () => {
    const { apiKey } = await stack.createTenant({ name: 'Free clients', plan: 'free' });
    const [a, b] = replicas(apiKey);
    const first = await pastRates(() => a.post('/api/clients', { display_name: 'One' }));
    expect(first.status).toBe(200);
    expect(policyNames(first)).toEqual(['requests']);
    const over = await pastRates(() => b.post('/api/clients', { display_name: 'Two' }));
    expectLimited(over, 'quota_exceeded');
    expect((over.json as any).limit).toBe('clients');
    const usage = await pastRates(() => a.get('/api/clients'));
    expect((usage.json as any).data).toHaveLength(1);
  });

  it('the daily send quota: five sends accepted in all, alternating replicas, then 429 quota_exceeded on both', async () => {
    const { apiKey } = await stack.createTenant({ name: 'Free sends', plan: 'free' });
    const apis = replicas(apiKey);
    const phone = await sim.phoneNumber();
    const client = await pastRates(() =>
      apis[0].post('/api/clients', {
        display_name: 'Shop',
        business_account_id: phone.waba_id,
        phone_number_id: phone.phone_number_id,
        access_token: phone.access_token,
      }),
    );
    const clientId = (client.json as any).id as string;
    const send = (i: number) =>
      pastRates(() => apis[i % 2].post('/api/messaging/send-location', { client_id: clientId, to: `+16505551${String(200 + i)}`, latitude: 1, longitude: 2 }));
    for (let i = 0; i < PLANS.free.sends_per_day; i++) {
      const res = await send(i);
      expect(res.status).toBe(200);
      expect(policyNames(res)).toEqual(['requests', 'sends', 'sends_per_day']);
      expect(res.headers.get('ratelimit')).toContain(`"sends_per_day";r=${PLANS.free.sends_per_day - i - 1};`);
    }
    for (const i of [0, 1]) {
      const over = await send(PLANS.free.sends_per_day + i);
      expectLimited(over, 'quota_exceeded');
      expect((over.json as any).limit).toBe('sends_per_day');
      // until the next UTC midnight
      expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(86_400);
    }
    expect(await sim.calls(`/${phone.phone_number_id}/messages`)).toHaveLength(PLANS.free.sends_per_day);
  });

  it('the per-second rate: a burst over both replicas gets 429 rate_limited, never more than the rate per second accepted', async () => {
    const { apiKey } = await stack.createTenant({ name: 'Free burst', plan: 'free' });
    const apis = replicas(apiKey);
    let limitedSeen = 0;
    // a burst on a busy machine may spread over several windows: burst again until one is refused
    for (let burst = 0; burst < 5 && !limitedSeen; burst++) {
      {
        const started = Date.now();
        const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => apis[i % 2].get('/api/clients')));
        const seconds = Math.floor(Date.now() / 1000) - Math.floor(started / 1000) + 1;
        const ok = answers.filter((r) => r.status === 200);
        // every answer carries the headers, accepted or not
        for (const r of answers) expect(policyNames(r)).toEqual(['requests']);
        expect(ok.length).toBeLessThanOrEqual(PLANS.free.requests_per_second * seconds);
        const limited = answers.filter((r) => r.status === 429);
        for (const r of limited) expectLimited(r, 'rate_limited');
        limitedSeen = limited.length;
      }
    }
    expect(limitedSeen).toBeGreaterThan(0);
  });
});
