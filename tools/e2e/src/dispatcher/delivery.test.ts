import { verify } from '@octokit/webhooks-methods';
import { EVENTS_DURABLE } from '@gateway/app-dispatcher';
import { connectBus, STREAMS } from '@gateway/bus';
import { buildEvent } from '@gateway/events';
import { createLogger } from '@gateway/logger';
import { startStack, type Stack } from '@gateway/test-stack';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

type Delivery = {
  id: string;
  event_id: string;
  event_type: string;
  client_id: string;
  url: string | null;
  status: string;
  attempts: number;
  response_code: number | null;
  last_error: string | null;
  attempt_log: Array<{ number: number; response_code: number | null; error: string | null }>;
};

describe('signed webhook delivery with JetStream redelivery retries', () => {
  let stack: Stack;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    stack = await startStack({
      services: ['tenant-directory', 'dispatcher', 'edge'],
      sim: false,
      env: { WEBHOOK_RETRY_DELAYS_MS: '300,900', WEBHOOK_TIMEOUT_MS: '800' },
    });
  }, 60_000);
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  const receiver = async (replies: Array<number | 'hang'> = [], fallback: number | 'hang' = 200) => {
    const r = await startWebhookReceiver({ replies, fallback });
    receivers.push(r);
    return r;
  };

  /** A tenant and a client whose webhook URL is given (null: none). */
  const setup = async (clientUrl: string | null, tenantUrl?: string) => {
    const t = await stack.createTenant();
    if (tenantUrl) expect((await t.api.put('/api/tenants/webhook-url', { webhook_url: tenantUrl })).status).toBe(200);
    const c = await t.api.post('/api/clients/', { display_name: 'Hooked', external_id: 'ext-1', ...(clientUrl ? { webhook_url: clientUrl } : {}) });
    expect(c.status).toBe(200);
    return { ...t, clientId: (c.json as { id: string }).id };
  };

  const delivery = async (api: Stack['api'] extends (...a: never[]) => infer A ? A : never, clientId: string, id: string) =>
    (await api.get<Delivery>(`/api/clients/${clientId}/webhook/deliveries/${id}`)).json;

  const settled = (api: Parameters<typeof delivery>[0], clientId: string, id: string) =>
    waitFor(
      async () => {
        const d = await delivery(api, clientId, id);
        return d.status !== 'pending' ? d : undefined;
      },
      { timeoutMs: 20_000, what: `delivery ${id} settled` },
    );

  it('signs the exact envelope bytes with the tenant secret; an independent library verifies it and refuses a tampered body', async () => {
    const r = await receiver();
    const { api, tenant, clientId } = await setup(r.url);
    const res = await api.post(`/api/clients/${clientId}/webhook/test`);
    expect(res.status).toBe(202);
    const { event_id: eventId, delivery_id: deliveryId } = res.json as { event_id: string; delivery_id: string };
    await waitFor(() => r.byEventId(eventId).length === 1, { what: 'test event received' });
    const got = r.byEventId(eventId)[0];
    const raw = got.raw.toString('utf8');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-event-type']).toBe('test');
    expect(got.headers['x-delivery-attempt']).toBe('1');
    expect(await verify(tenant.webhook_secret, raw, String(got.headers['x-signature-256']))).toBe(true);
    expect(await verify(tenant.webhook_secret, raw.replace('"test":true', '"test":false'), String(got.headers['x-signature-256']))).toBe(false);
    expect(await verify('another-secret', raw, String(got.headers['x-signature-256']))).toBe(false);
    expect(Object.keys(got.body as object)).toEqual(['type', 'client_id', 'external_id', 'payload']);
    expect(got.body).toMatchObject({ type: 'test', client_id: clientId, external_id: 'ext-1', payload: { test: true } });
    expect(Date.parse((got.body as { payload: { requested_at: string } }).payload.requested_at)).not.toBeNaN();
    const d = await settled(api, clientId, deliveryId);
    expect(d).toMatchObject({ status: 'succeeded', attempts: 1, response_code: 200, event_id: eventId, event_type: 'test', url: r.url });
    // the record's body is the exact signed bytes the receiver got
    expect((d as unknown as { body: string }).body).toBe(raw);
  });

  it("records an event's own series under the X-Delivery-Id its receiver saw (signup_completed of an active client)", async () => {
    const r = await receiver([503]);
    const { api } = await stack.createTenant();
    const c = await api.post('/api/clients/', {
      display_name: 'Active',
      webhook_url: r.url,
      business_account_id: 'waba-rec',
      phone_number_id: `pn-rec-${Date.now()}`,
      access_token: 'tok',
    });
    const clientId = (c.json as { id: string }).id;
    await waitFor(() => r.byType('signup_completed').length === 2, { what: 'two attempts of signup_completed' });
    const [first, second] = r.byType('signup_completed');
    expect(second.headers['x-delivery-id']).toBe(first.headers['x-delivery-id']);
    expect(second.headers['x-event-id']).toBe(`signup_completed:${clientId}`);
    const d = await settled(api, clientId, String(first.headers['x-delivery-id']));
    expect(d).toMatchObject({ status: 'succeeded', attempts: 2, response_code: 200, event_type: 'signup_completed' });
    expect(d.attempt_log.map((a) => [a.number, a.response_code])).toEqual([
      [1, 503],
      [2, 200],
    ]);
    expect(second.body).toMatchObject({
      type: 'signup_completed',
      client_id: clientId,
      payload: { business_account_id: 'waba-rec', signup_status: 'completed' },
    });
  });

  it('an event handed out again as a first delivery after its series succeeded is not sent again (its record is read first)', async () => {
    const r = await receiver();
    const { api, tenant, clientId } = await setup(r.url);
    const bus = await connectBus({ url: stack.nats.url, name: 'first-sight-test', logger: createLogger({ name: 'first-sight-test', level: 'silent' }) });
    try {
      const event = buildEvent({
        type: 'test',
        tenantId: tenant.id,
        clientId,
        externalId: 'ext-1',
        payload: { test: true, requested_at: new Date().toISOString() },
      });
      // two stream messages of one event (message ids of their own, so JetStream keeps both): each is a first delivery
      await bus.publish(event.subject, event.body, { headers: event.headers, msgId: `${event.id}-a` });
      await waitFor(
        async () =>
          (await api.get<{ data: Delivery[] }>(`/api/clients/${clientId}/webhook/deliveries`)).json.data.some(
            (d) => d.event_id === event.id && d.status === 'succeeded',
          ),
        { what: 'the event delivered and its record succeeded' },
      );
      const { seq } = await bus.publish(event.subject, event.body, { headers: event.headers, msgId: `${event.id}-b` });
      // the repeat handled: delivered to the durable and acknowledged
      await waitFor(
        async () => {
          const info = await bus.jsm.consumers.info(STREAMS.events.name, EVENTS_DURABLE);
          return info.delivered.stream_seq >= seq && info.num_ack_pending === 0 && info.num_pending === 0;
        },
        { what: 'the repeat acknowledged' },
      );
      expect(r.byEventId(event.id)).toHaveLength(1);
    } finally {
      await bus.close();
    }
  });

  it('500, 500, 200: three attempts with the same event id, the record succeeded with attempts 3 and code 200', async () => {
    const r = await receiver([500, 500, 200]);
    const { api, clientId } = await setup(r.url);
    const { event_id: eventId, delivery_id: id } = (await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string; delivery_id: string };
    const d = await settled(api, clientId, id);
    expect(d).toMatchObject({ status: 'succeeded', attempts: 3, response_code: 200, last_error: null });
    const got = r.byEventId(eventId);
    expect(got.map((g) => g.headers['x-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(got.map((g) => g.raw.toString('hex'))).size).toBe(1);
    expect(d.attempt_log.map((a) => a.response_code)).toEqual([500, 500, 200]);
    // the configured delays (300 ms, 900 ms) separate the attempts: JetStream held the message meanwhile
    expect(got[1].at - got[0].at).toBeGreaterThanOrEqual(250);
    expect(got[2].at - got[1].at).toBeGreaterThanOrEqual(850);
  });

  it('a receiver that always answers 500 gets exactly three attempts, then the record is failed with the last code', async () => {
    const r = await receiver([], 500);
    const { api, clientId } = await setup(r.url);
    const { event_id: eventId, delivery_id: id } = (await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string; delivery_id: string };
    const d = await settled(api, clientId, id);
    expect(d).toMatchObject({ status: 'failed', attempts: 3, response_code: 500, last_error: 'receiver answered 500' });
    await new Promise((res) => setTimeout(res, 1500));
    expect(r.byEventId(eventId)).toHaveLength(3);
  });

  it('a receiver that never answers: each attempt times out, three in all, then failed with the timeout as last error', async () => {
    const r = await receiver([], 'hang');
    const { api, clientId } = await setup(r.url);
    const { event_id: eventId, delivery_id: id } = (await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string; delivery_id: string };
    const d = await settled(api, clientId, id);
    expect(d).toMatchObject({ status: 'failed', attempts: 3, response_code: null });
    expect(d.last_error).toMatch(/no answer within 800 ms/);
    await new Promise((res) => setTimeout(res, 1500));
    expect(r.byEventId(eventId)).toHaveLength(3);
  });

  it("uses the tenant's URL when the client has none, and records skipped when neither has one", async () => {
    const r = await receiver();
    const viaTenant = await setup(null, r.url);
    const a = (await viaTenant.api.post(`/api/clients/${viaTenant.clientId}/webhook/test`)).json as { event_id: string; delivery_id: string };
    expect(await settled(viaTenant.api, viaTenant.clientId, a.delivery_id)).toMatchObject({ status: 'succeeded', url: r.url });
    const nowhere = await setup(null);
    const b = (await nowhere.api.post(`/api/clients/${nowhere.clientId}/webhook/test`)).json as { event_id: string; delivery_id: string };
    expect(await settled(nowhere.api, nowhere.clientId, b.delivery_id)).toMatchObject({ status: 'skipped', attempts: 0, url: null });
  });

  it('a manual retry is a new series for the same event id', async () => {
    const r = await receiver([], 500);
    const { api, clientId } = await setup(r.url);
    const first = (await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string; delivery_id: string };
    await settled(api, clientId, first.delivery_id);
    r.fallback = 200;
    const retry = await api.post(`/api/clients/${clientId}/webhook/deliveries/${first.delivery_id}/retry`);
    expect(retry.status).toBe(202);
    const again = retry.json as { event_id: string; delivery_id: string };
    expect(again.event_id).toBe(first.event_id);
    expect(again.delivery_id).not.toBe(first.delivery_id);
    expect(await settled(api, clientId, again.delivery_id)).toMatchObject({ status: 'succeeded', attempts: 1 });
    const got = r.byEventId(first.event_id);
    expect(got).toHaveLength(4);
    expect(got[3].headers['x-delivery-attempt']).toBe('1');
    expect(got[3].raw.equals(got[0].raw)).toBe(true);
  });

  it("lists deliveries newest first with filters and a cursor, and hides other tenants' clients and deliveries", async () => {
    const r = await receiver();
    const { api, clientId } = await setup(r.url);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(((await api.post(`/api/clients/${clientId}/webhook/test`)).json as { delivery_id: string }).delivery_id);
    for (const id of ids) await settled(api, clientId, id);
    const page1 = (await api.get<{ data: Delivery[]; next_cursor: string | null }>(`/api/clients/${clientId}/webhook/deliveries?limit=2`)).json;
    expect(page1.data.map((d) => d.id)).toEqual([ids[4], ids[3]]);
    const page2 = (
      await api.get<{ data: Delivery[]; next_cursor: string | null }>(`/api/clients/${clientId}/webhook/deliveries?limit=2&cursor=${page1.next_cursor}`)
    ).json;
    expect(page2.data.map((d) => d.id)).toEqual([ids[2], ids[1]]);
    const page3 = (
      await api.get<{ data: Delivery[]; next_cursor: string | null }>(`/api/clients/${clientId}/webhook/deliveries?limit=2&cursor=${page2.next_cursor}`)
    ).json;
    expect(page3).toEqual({ data: [expect.objectContaining({ id: ids[0] })], next_cursor: null });
    expect((await api.get<{ data: Delivery[] }>(`/api/clients/${clientId}/webhook/deliveries?status=failed`)).json.data).toEqual([]);
    expect((await api.get<{ data: Delivery[] }>(`/api/clients/${clientId}/webhook/deliveries?event_type=test&status=succeeded`)).json.data).toHaveLength(5);

    const bad = await api.get<{ detail: Array<{ loc: string[]; type: string }> }>(`/api/clients/${clientId}/webhook/deliveries?limit=0&status=lost`);
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((d) => d.loc.join('.')).sort()).toEqual(['query.limit', 'query.status']);

    const other = await stack.createTenant();
    expect((await other.api.get(`/api/clients/${clientId}/webhook/deliveries`)).status).toBe(404);
    expect((await other.api.post(`/api/clients/${clientId}/webhook/test`)).status).toBe(404);
    expect((await other.api.post(`/api/clients/${clientId}/webhook/deliveries/${ids[0]}/retry`)).status).toBe(404);
    const own = await other.api.post('/api/clients/', { display_name: 'Other' });
    const ownId = (own.json as { id: string }).id;
    expect((await other.api.post(`/api/clients/${ownId}/webhook/deliveries/${ids[0]}/retry`)).status).toBe(404);
    expect((await api.post(`/api/clients/00000000-0000-4000-8000-000000000000/webhook/test`)).status).toBe(404);
  });
});

describe('webhook targets that are not public', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      services: ['tenant-directory', 'dispatcher', 'edge'],
      sim: false,
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_RETRY_DELAYS_MS: '100,100' },
    });
  }, 60_000);
  afterAll(async () => stack?.stop());

  it.each([
    'http://127.0.0.1:9/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[::1]:9/hook',
    'http://localhost:9/hook',
    'http://[::ffff:127.0.0.1]:9/',
  ])('refuses %s and records the delivery failed', async (url) => {
    const { api } = await stack.createTenant();
    const c = await api.post('/api/clients/', { display_name: 'SSRF', webhook_url: url });
    const clientId = (c.json as { id: string }).id;
    const { delivery_id: id } = (await api.post(`/api/clients/${clientId}/webhook/test`)).json as { delivery_id: string };
    const d = await waitFor(
      async () => {
        const r = (await api.get<Delivery>(`/api/clients/${clientId}/webhook/deliveries/${id}`)).json;
        return r.status !== 'pending' ? r : undefined;
      },
      { timeoutMs: 15_000 },
    );
    expect(d.status).toBe('failed');
    expect(d.attempts).toBe(1);
    expect(d.response_code).toBeNull();
    expect(d.last_error).toMatch(/not public/);
  });
});
