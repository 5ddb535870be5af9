import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/** GET /api/usage (issue 28): the plan and its quotas' use, sends per day by category and deliveries per day. */
describe('GET /api/usage', () => {
  let stack: Stack;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'dispatcher', 'edge'] });
    receiver = await startWebhookReceiver();
  }, 90_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  const total = (rows: Array<{ count: number }>) => rows.reduce((n, r) => n + r.count, 0);

  it("counts the tenant's sends, deliveries and quotas, and nothing of another tenant's", async () => {
    const sim = new SimControl(stack.sim!.url);
    const { api } = await stack.createTenant({ name: 'Usage', webhook_url: receiver.url });
    const { api: other }: { api: ApiClient } = await stack.createTenant({ name: 'Quiet' });
    const phone = await sim.phoneNumber();
    const c = await api.post('/api/clients', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    const clientId = (c.json as any).id;
    for (const to of ['+16505550101', '+16505550102'])
      expect((await api.post('/api/messaging/send-location', { client_id: clientId, to, latitude: 1, longitude: 2 })).status).toBe(200);
    await sim.inboundMessage(phone.phone_number_id, '16505550101', 'text', { body: 'hi' });
    await waitFor(() => receiver.received.length > 0, { timeoutMs: 20_000, what: 'a delivery' });

    const today = new Date().toISOString().slice(0, 10);
    const usage = await waitFor(
      async () => {
        const res = await api.get(`/api/usage?from=${today}&to=${today}`);
        expect(res.status).toBe(200);
        return total((res.json as any).deliveries) > 0 ? (res.json as any) : undefined;
      },
      { timeoutMs: 20_000, what: 'the delivery counted' },
    );
    expect(usage).toMatchObject({ plan: 'standard', from: today, to: today });
    expect(total(usage.sends)).toBe(2);
    for (const s of usage.sends) expect(s).toEqual({ day: today, category: expect.any(String), count: expect.any(Number) });
    const quota = (name: string) => usage.quotas.find((q: any) => q.name === name);
    expect(quota('sends_per_day')).toMatchObject({ used: 2, window_seconds: 86_400 });
    expect(quota('clients')).toMatchObject({ used: 1, window_seconds: 0 });

    const theirs = (await other.get('/api/usage')).json as any;
    expect([total(theirs.sends), total(theirs.deliveries), theirs.quotas.find((q: any) => q.name === 'clients').used]).toEqual([0, 0, 0]);
  });

  it('refuses a range backwards or longer than 92 days with a 422', async () => {
    const { api } = await stack.createTenant({ name: 'Range' });
    expect((await api.get('/api/usage?from=2026-02-01&to=2026-01-01')).status).toBe(422);
    expect((await api.get('/api/usage?from=2025-01-01&to=2026-01-01')).status).toBe(422);
    expect((await api.get('/api/usage?from=yesterday')).status).toBe(422);
  });
});
