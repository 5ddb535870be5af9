import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { clientWithTemplates, recipients } from './testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/** A plan whose campaigns per day a test reaches in three requests (PLANS of the tenant directory). */
const PLANS = {
  standard: { max_clients: 10, sends_per_day: 10_000, sends_per_second: 20, campaigns_per_day: 2, requests_per_second: 50 },
};

/*
 * The plan's `campaigns_per_day` (issue 26, docs/business.md): each campaign created counts, a scheduled one too;
 * over the quota the creation is a 429 `quota_exceeded` naming the limit, with Retry-After, and nothing is stored.
 */
describe("campaigns: the plan's campaigns per day", () => {
  let stack: Stack;
  let api: ApiClient;
  let clientId: string;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], env: { PLANS: JSON.stringify(PLANS) } });
    ({ api } = await stack.createTenant({ name: 'Planned' }));
    ({ clientId } = await clientWithTemplates(stack, api));
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('counts each campaign created against the day, refuses the one over it with 429 quota_exceeded, and stores nothing of it', async () => {
    const body = (name: string, extra: Record<string, unknown> = {}) => ({
      client_id: clientId,
      name,
      template_name: 'shipping_notice',
      lang: 'en_US',
      recipients: recipients(1, 80_000),
      ...extra,
    });
    const first = await api.post('/api/campaigns', body('One'));
    expect(first.status).toBe(201);
    expect(first.headers.get('ratelimit-policy')).toContain('"campaigns_per_day";q=2;w=86400');
    expect(first.headers.get('ratelimit')).toContain('"campaigns_per_day";r=1;');
    const second = await api.post('/api/campaigns', body('Two', { schedule_at: new Date(Date.now() + 3600_000).toISOString() }));
    expect([second.status, (second.json as any).status]).toEqual([201, 'scheduled']);
    const over = await api.post('/api/campaigns', body('Three'));
    expect([over.status, (over.json as any).code, (over.json as any).limit]).toEqual([429, 'quota_exceeded', 'campaigns_per_day']);
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(86_400);
    const list = await api.get(`/api/campaigns?client_id=${clientId}`);
    expect((list.json as any).data.map((c: any) => c.name).sort()).toEqual(['One', 'Two']);
    // other requests are not campaigns: reading and controlling them goes on
    expect((await api.post(`/api/campaigns/${(first.json as any).id}/start`, {})).status).toBe(200);
    await api.post(`/api/campaigns/${(second.json as any).id}/cancel`, {});
  }, 60_000);
});
