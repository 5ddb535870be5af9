import { startStack, type Stack } from '@gateway/test-stack';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

type Delivery = { id: string; event_id: string; status: string; attempts: number; response_code: number | null; created_at: string };

describe('bulk replay of failed and skipped deliveries', () => {
  let stack: Stack;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'dispatcher', 'edge'], sim: false, env: { WEBHOOK_RETRY_DELAYS_MS: '100,200' } });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  const setup = async (fallback: number) => {
    const r = await startWebhookReceiver({ fallback });
    receivers.push(r);
    const t = await stack.createTenant();
    const clientId = ((await t.api.post('/api/clients/', { display_name: 'Replayed', webhook_url: r.url })).json as { id: string }).id;
    const all = async () => (await t.api.get<{ data: Delivery[] }>(`/api/clients/${clientId}/webhook/deliveries?limit=100`)).json.data;
    return { ...t, r, clientId, all };
  };

  it('20 events failed while the receiver was down; one replay delivers each once, same event ids, as new series', async () => {
    const { api, r, clientId, all } = await setup(503);
    const since = new Date(Date.now() - 1000).toISOString();
    const eventIds: string[] = [];
    for (let i = 0; i < 20; i++) eventIds.push(((await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string }).event_id);
    await waitFor(
      async () => {
        const list = await all();
        return list.length === 20 && list.every((d) => d.status === 'failed');
      },
      { timeoutMs: 30_000, what: 'all 20 failed' },
    );
    // each event's attempts as the receiver saw them: 1, 2, 3 and no more
    const attemptsSeen = () => Object.fromEntries(eventIds.map((id) => [id, r.byEventId(id).map((d) => d.headers['x-delivery-attempt'])]));
    expect(attemptsSeen()).toEqual(Object.fromEntries(eventIds.map((id) => [id, ['1', '2', '3']])));
    expect(r.received).toHaveLength(60);

    r.fallback = 200;
    const replay = await api.post<{ replayed: number; has_more: boolean }>(`/api/clients/${clientId}/webhook/deliveries/replay`, { since });
    expect(replay.status).toBe(202);
    expect(replay.json).toEqual({ replayed: 20, has_more: false });

    const records = await waitFor(
      async () => {
        const list = await all();
        return list.length === 40 && list.filter((d) => d.status === 'succeeded').length === 20 ? list : undefined;
      },
      { timeoutMs: 30_000, what: 'the 20 new series succeeded' },
    );
    const succeeded = records.filter((d) => d.status === 'succeeded');
    expect(succeeded.map((d) => d.event_id).sort()).toEqual([...eventIds].sort());
    expect(succeeded.every((d) => d.attempts === 1 && d.response_code === 200)).toBe(true);
    expect(
      records
        .filter((d) => d.status === 'failed')
        .map((d) => d.event_id)
        .sort(),
    ).toEqual([...eventIds].sort());
    // once each: every event got exactly one 200 answer, after the three failed attempts
    for (const id of eventIds) {
      expect(r.byEventId(id)).toHaveLength(4);
      expect(r.byEventId(id)[3].headers['x-delivery-attempt']).toBe('1');
      expect(r.byEventId(id)[3].raw.equals(r.byEventId(id)[0].raw)).toBe(true);
    }

    // nothing failed is left to replay: the latest series of each event succeeded
    expect((await api.post(`/api/clients/${clientId}/webhook/deliveries/replay`, { since })).json).toEqual({ replayed: 0, has_more: false });
  }, 90_000);

  it('only records in [since, until) with the asked status; skipped ones (no URL) once a URL is set', async () => {
    const { api, r, clientId, all } = await setup(200);
    expect((await api.patch(`/api/clients/${clientId}`, { webhook_url: null })).status).toBe(200);
    const first = ((await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string }).event_id;
    await waitFor(async () => (await all()).some((d) => d.event_id === first && d.status === 'skipped'), { what: 'first skipped' });
    const between = new Date(Date.now() + 50).toISOString();
    await new Promise((res) => setTimeout(res, 100));
    const second = ((await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string }).event_id;
    await waitFor(async () => (await all()).filter((d) => d.status === 'skipped').length === 2, { what: 'second skipped' });
    expect((await api.patch(`/api/clients/${clientId}`, { webhook_url: r.url })).status).toBe(200);

    const early = new Date(Date.now() - 60_000).toISOString();
    expect((await api.post(`/api/clients/${clientId}/webhook/deliveries/replay`, { since: early })).json).toEqual({ replayed: 0, has_more: false });
    expect((await api.post(`/api/clients/${clientId}/webhook/deliveries/replay`, { status: 'skipped', since: between })).json).toEqual({
      replayed: 1,
      has_more: false,
    });
    await waitFor(() => r.byEventId(second).length === 1, { what: 'second delivered' });
    expect((await api.post(`/api/clients/${clientId}/webhook/deliveries/replay`, { status: 'skipped', since: early, until: between })).json).toEqual({
      replayed: 1,
      has_more: false,
    });
    await waitFor(() => r.byEventId(first).length === 1, { what: 'first delivered' });
  });

  it("bad requests are 422 in the spec form; another tenant's client is a 404", async () => {
    const { api, clientId } = await setup(200);
    const path = `/api/clients/${clientId}/webhook/deliveries/replay`;
    const locs = async (body: unknown) => {
      const res = await api.post<{ detail: Array<{ loc: string[]; type: string }> }>(path, body);
      expect(res.status).toBe(422);
      return res.json.detail.map((d) => `${d.loc.join('.')}:${d.type}`).sort();
    };
    expect(await locs({})).toEqual(['body.since:missing']);
    expect(await locs({ since: 'yesterday', status: 'succeeded' })).toEqual(['body.since:datetime_parsing', 'body.status:enum']);
    expect(await locs({ since: '2026-01-02T00:00:00Z', until: '2026-01-01T00:00:00Z' })).toEqual(['body.until:greater_than']);
    const other = await stack.createTenant();
    expect((await other.api.post(path, { since: '2026-01-01T00:00:00Z' })).status).toBe(404);
    expect((await api.post('/api/clients/00000000-0000-4000-8000-000000000000/webhook/deliveries/replay', { since: '2026-01-01T00:00:00Z' })).status).toBe(404);
  });
});
