import { tenantDirectory as td } from '@gateway/contracts';
import { createServiceClient } from '@gateway/rpc';
import { spawnServiceProcess, startStack, type ServiceProcess, type Stack } from '@gateway/test-stack';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

type Delivery = { id: string; status: string; attempts: number; response_code: number | null };

/** A stack whose dispatcher runs as its own OS process, so the test can kill it outright. */
async function stackWithDispatcherProcess(env: Record<string, string>) {
  const stack = await startStack({ services: ['tenant-directory'], sim: false, env });
  const dispatcher = await spawnServiceProcess('dispatcher', stack.env);
  stack.env.DISPATCHER_ADDR = `127.0.0.1:${dispatcher.grpcPort}`;
  await stack.startService('edge');
  return { stack, dispatcher };
}

describe('the dispatcher loses nothing', () => {
  let stack: Stack;
  let dispatcher: ServiceProcess;
  let receiver: WebhookReceiver;

  afterEach(async () => {
    await dispatcher?.stop();
    await receiver?.close();
    await stack?.stop();
  });

  it('killed mid-series and started again, it finishes every series; repeats carry the same event id and bytes', async () => {
    ({ stack, dispatcher } = await stackWithDispatcherProcess({ WEBHOOK_RETRY_DELAYS_MS: '1500,3000', WEBHOOK_TIMEOUT_MS: '2000' }));
    receiver = await startWebhookReceiver({ replies: Array(8).fill(500), fallback: 200 });
    const { api } = await stack.createTenant();
    const clientId = ((await api.post('/api/clients/', { display_name: 'Crash', webhook_url: receiver.url })).json as { id: string }).id;
    const sent: Array<{ event_id: string; delivery_id: string }> = [];
    for (let i = 0; i < 12; i++) sent.push((await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string; delivery_id: string });

    // the first eight requests fail: their series wait in JetStream for their second attempt when the process dies
    await waitFor(() => receiver.received.length >= 8, { timeoutMs: 20_000, what: 'first attempts' });
    await dispatcher.kill();
    const atKill = receiver.received.length;
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.received.length).toBe(atKill);
    dispatcher = await spawnServiceProcess('dispatcher', stack.env, { grpcPort: dispatcher.grpcPort });

    const finished = await waitFor(
      async () => {
        const list = (await api.get<{ data: Delivery[] }>(`/api/clients/${clientId}/webhook/deliveries?limit=100`)).json.data;
        return list.length === 12 && list.every((d) => d.status !== 'pending') ? list : undefined;
      },
      { timeoutMs: 60_000, what: 'every series finished after the restart' },
    );
    expect(finished.every((d) => d.status === 'succeeded' && d.response_code === 200)).toBe(true);
    for (const { event_id: eventId } of sent) {
      const got = receiver.byEventId(eventId);
      expect(got.length).toBeGreaterThanOrEqual(1);
      expect(new Set(got.map((g) => g.raw.toString('hex'))).size).toBe(1);
      expect(got.filter((g) => g.headers['x-event-id'] === eventId)).toHaveLength(got.length);
    }
  }, 120_000);

  it('with nats-server down for a few seconds, clients registered and tests requested meanwhile are all delivered after', async () => {
    ({ stack, dispatcher } = await stackWithDispatcherProcess({ WEBHOOK_RETRY_DELAYS_MS: '500,1000' }));
    receiver = await startWebhookReceiver();
    const { api, tenant } = await stack.createTenant();
    expect((await api.put('/api/tenants/webhook-url', { webhook_url: receiver.url })).status).toBe(200);
    const directory = createServiceClient(td.TenantDirectoryService, stack.env.TENANT_DIRECTORY_ADDR!);
    const pending = ((await api.post('/api/clients/', { display_name: 'Pending' })).json as { id: string }).id;

    await stack.nats.stop();
    const expected: string[] = [];
    // a client registered with its business account, a pending one completing its signup, and test events
    const active = (
      await api.post('/api/clients/', { display_name: 'Active', business_account_id: 'waba-outage', phone_number_id: 'pn-outage', access_token: 'tok' })
    ).json as { id: string };
    expect(active.id).toBeTruthy();
    expected.push(`signup_completed:${active.id}`);
    await directory.completeClientSignup({
      tenantId: tenant.id,
      clientId: pending,
      businessAccountId: 'waba-o2',
      phoneNumberId: 'pn-o2',
      accessToken: 'tok2',
      webhookRegistered: true,
    });
    expected.push(`signup_completed:${pending}`);
    for (const id of [active.id, pending]) {
      const t = await api.post(`/api/clients/${id}/webhook/test`);
      expect(t.status).toBe(202);
      expected.push((t.json as { event_id: string }).event_id);
    }
    await new Promise((r) => setTimeout(r, 2500));
    expect(receiver.received).toHaveLength(0);
    await stack.nats.start();

    await waitFor(() => expected.every((id) => receiver.byEventId(id).length >= 1), { timeoutMs: 45_000, what: 'every event delivered after the outage' });
    expect(
      receiver
        .byType('signup_completed')
        .map((r) => (r.body as { client_id: string }).client_id)
        .sort(),
    ).toEqual([active.id, pending].sort());
    expect(receiver.byType('test')).toHaveLength(2);
    directory.close();
  }, 120_000);
});

describe('the default retry schedule', () => {
  it('spaces the three attempts 5 s and 25 s apart', async () => {
    const stack = await startStack({ services: ['tenant-directory', 'dispatcher', 'edge'], sim: false });
    const receiver = await startWebhookReceiver({ fallback: 500 });
    try {
      const { api } = await stack.createTenant();
      const clientId = ((await api.post('/api/clients/', { display_name: 'Slow', webhook_url: receiver.url })).json as { id: string }).id;
      const { event_id: eventId } = (await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string };
      await waitFor(() => receiver.byEventId(eventId).length >= 3, { timeoutMs: 45_000, intervalMs: 200, what: 'three attempts' });
      const [a, b, c] = receiver.byEventId(eventId).map((r) => r.at);
      expect(Math.abs(b - a - 5000)).toBeLessThanOrEqual(1000);
      expect(Math.abs(c - b - 25000)).toBeLessThanOrEqual(1000);
    } finally {
      await receiver.close();
      await stack.stop();
    }
  }, 90_000);
});
