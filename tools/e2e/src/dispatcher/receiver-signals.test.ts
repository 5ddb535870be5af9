import { startStack, type Stack } from '@gateway/test-stack';
import { startWebhookReceiver, waitFor, type ReceiverReply, type WebhookReceiver } from '@gateway/testing';

type Delivery = { id: string; event_id: string; status: string; attempts: number; response_code: number | null; last_error: string | null };
type Client = { webhook_status: string; webhook_disabled_reason: string | null; webhook_disabled_at: string | null };

/** The spec's schedule (0, +5 s, +25 s) stays the default here: Retry-After must be what changes it. */
describe('receiver signals and endpoint health', () => {
  let stack: Stack;
  const receivers: WebhookReceiver[] = [];
  const DISABLE_AFTER_MS = 2500;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'dispatcher', 'edge'], sim: false, env: { WEBHOOK_DISABLE_AFTER_MS: String(DISABLE_AFTER_MS) } });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  const receiver = async (replies: ReceiverReply[] = [], fallback: ReceiverReply = 200) => {
    const r = await startWebhookReceiver({ replies, fallback });
    receivers.push(r);
    return r;
  };
  const setup = async (r: WebhookReceiver) => {
    const t = await stack.createTenant();
    const clientId = ((await t.api.post('/api/clients/', { display_name: 'Signals', webhook_url: r.url })).json as { id: string }).id;
    const test = async () => (await t.api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string; delivery_id: string };
    const delivery = async (id: string) => (await t.api.get<Delivery>(`/api/clients/${clientId}/webhook/deliveries/${id}`)).json;
    const settled = (id: string) =>
      waitFor(
        async () => {
          const d = await delivery(id);
          return d.status !== 'pending' ? d : undefined;
        },
        { timeoutMs: 45_000, what: `delivery ${id} settled` },
      );
    const client = async () => (await t.api.get<Client>(`/api/clients/${clientId}`)).json;
    return { ...t, clientId, test, settled, client };
  };

  it('410 Gone ends the series after one attempt and disables the webhook; a new webhook_url enables it again', async () => {
    const gone = await receiver([], 410);
    const { api, clientId, test, settled, client } = await setup(gone);
    expect((await client()).webhook_status).toBe('active');
    const first = await test();
    expect(await settled(first.delivery_id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      response_code: 410,
      last_error: 'receiver answered 410 Gone; webhook disabled',
    });
    const c = await waitFor(async () => ((await client()).webhook_status === 'disabled' ? client() : undefined), { what: 'webhook disabled' });
    expect(c.webhook_disabled_reason).toBe('receiver answered 410 Gone');
    expect(Date.parse(c.webhook_disabled_at!)).toBeGreaterThan(Date.now() - 60_000);

    const skipped = await test();
    expect(await settled(skipped.delivery_id)).toMatchObject({ status: 'skipped', attempts: 0, last_error: 'webhook disabled: receiver answered 410 Gone' });
    expect(gone.received).toHaveLength(1);

    const fresh = await receiver();
    const patched = await api.patch<Client>(`/api/clients/${clientId}`, { webhook_url: fresh.url });
    expect(patched.json).toMatchObject({ webhook_status: 'active', webhook_disabled_reason: null, webhook_disabled_at: null });
    const after = await test();
    expect(await settled(after.delivery_id)).toMatchObject({ status: 'succeeded' });
    expect(fresh.byEventId(after.event_id)).toHaveLength(1);
  });

  it('429 with Retry-After: 2 brings the next attempt to about 2 s (not the 5 s of the schedule)', async () => {
    const r = await receiver([{ status: 429, headers: { 'Retry-After': '2' } }]);
    const { test, settled } = await setup(r);
    const { event_id: eventId, delivery_id: id } = await test();
    expect(await settled(id)).toMatchObject({ status: 'succeeded', attempts: 2 });
    const [a, b] = r.byEventId(eventId);
    expect(b.at - a.at).toBeGreaterThanOrEqual(1800);
    expect(b.at - a.at).toBeLessThan(4000);
  });

  it('503 with Retry-After on every attempt never adds attempts: three in all, then failed', async () => {
    const r = await receiver([], { status: 503, headers: { 'Retry-After': '1' } });
    const { test, settled } = await setup(r);
    const { event_id: eventId, delivery_id: id } = await test();
    expect(await settled(id)).toMatchObject({ status: 'failed', attempts: 3, response_code: 503 });
    const at = r.byEventId(eventId).map((g) => g.at);
    expect(at).toHaveLength(3);
    expect(at[1] - at[0]).toBeGreaterThanOrEqual(800);
    expect(at[2] - at[1]).toBeLessThan(4000);
    await new Promise((res) => setTimeout(res, 1500));
    expect(r.byEventId(eventId)).toHaveLength(3);
  });

  it('failing past the disable period disables the webhook; later events are skipped, then PATCH enables it and a replay delivers them', async () => {
    const r = await receiver([], 500);
    const { api, clientId, test, settled, client } = await setup(r);
    const since = new Date(Date.now() - 1000).toISOString();
    const a = await test();
    await waitFor(() => r.byEventId(a.event_id).length >= 1, { what: 'first failure' });
    await new Promise((res) => setTimeout(res, DISABLE_AFTER_MS + 300));
    const b = await test();
    const c = await waitFor(async () => ((await client()).webhook_status === 'disabled' ? client() : undefined), { what: 'webhook disabled' });
    expect(c.webhook_disabled_reason).toBe('every delivery failed for the disable period');
    const later = await test();
    expect(await settled(later.delivery_id)).toMatchObject({ status: 'skipped', attempts: 0 });
    // the series under way end skipped at their next attempt
    expect((await settled(a.delivery_id)).status).toBe('skipped');
    expect((await settled(b.delivery_id)).status).toBe('skipped');
    const seenBefore = r.received.length;

    r.fallback = 200;
    expect((await api.patch<Client>(`/api/clients/${clientId}`, { webhook_status: 'active' })).json.webhook_status).toBe('active');
    const replay = await api.post<{ replayed: number }>(`/api/clients/${clientId}/webhook/deliveries/replay`, { status: 'skipped', since });
    expect(replay.json).toEqual({ replayed: 3, has_more: false });
    for (const e of [a, b, later])
      await waitFor(() => r.byEventId(e.event_id).some((g) => r.received.indexOf(g) >= seenBefore), { what: `event ${e.event_id} delivered after the replay` });
    expect(r.received.length - seenBefore).toBe(3);
    expect((await client()).webhook_status).toBe('active');
  }, 90_000);

  it('a tenant may disable its webhook on purpose; a bad webhook_status is a 422', async () => {
    const r = await receiver();
    const { api, clientId, test, settled } = await setup(r);
    const off = await api.patch<Client>(`/api/clients/${clientId}`, { webhook_status: 'disabled' });
    expect(off.json).toMatchObject({ webhook_status: 'disabled', webhook_disabled_reason: 'disabled by the tenant' });
    expect(await settled((await test()).delivery_id)).toMatchObject({ status: 'skipped' });
    expect(r.received).toHaveLength(0);
    expect((await api.patch(`/api/clients/${clientId}`, { webhook_status: 'paused' })).status).toBe(422);
  });
});
