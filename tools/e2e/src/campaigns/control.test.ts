import type { ApiClient, Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';
import { allRecipients, campaignUntil, campaignWorld, type CampaignWorld, maxPerSecond, recipients, type SimPhone, sumOfCounts } from './testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/*
 * A campaign under the tenant's hand and the provider's refusals (issue 26): pause, resume and cancel; opt-outs by
 * the provider's user_preferences webhook, a STOP text, the API and the 131050 failure; the provider's 130429.
 */
describe('campaigns: pause, resume, cancel, opt-outs and the provider throttling', () => {
  let stack: Stack;
  let sim: SimControl;
  let api: ApiClient;
  let clientId: string;
  let phone: SimPhone;
  let arrivalsTo: CampaignWorld['arrivalsTo'];

  beforeAll(async () => {
    ({ stack, sim, api, clientId, phone, arrivalsTo } = await campaignWorld({ processes: ['messaging'] }));
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('pause stops sending within a second, resume continues without repeats, cancel leaves the rest skipped', async () => {
    const list = recipients(200, 20_000);
    const c = (
      await api.post('/api/campaigns', {
        client_id: clientId,
        name: 'Controlled',
        template_name: 'shipping_notice',
        lang: 'en_US',
        recipients: list,
        rate_per_second: 10,
      })
    ).json as any;
    expect((await api.post(`/api/campaigns/${c.id}/start`, {})).status).toBe(200);
    await waitFor(async () => (await arrivalsTo(list)).length >= 15, { what: '15 sends', timeoutMs: 30_000 });

    const paused = await api.post(`/api/campaigns/${c.id}/pause`, {});
    const pausedAt = Date.now();
    expect([paused.status, (paused.json as any).status]).toEqual([200, 'paused']);
    // a second and a half of watching: nothing arrives later than a second after the pause answered
    await waitFor(() => Date.now() > pausedAt + 1500, { what: 'the watch', timeoutMs: 5000 });
    const whilePaused = await arrivalsTo(list);
    expect(whilePaused.filter((a) => a.at > pausedAt + 1000)).toEqual([]);
    const before = whilePaused.length;
    expect((await api.post(`/api/campaigns/${c.id}/pause`, {})).status).toBe(409);

    expect((await api.post(`/api/campaigns/${c.id}/resume`, {})).status).toBe(200);
    await waitFor(async () => (await arrivalsTo(list)).length >= before + 15, { what: '15 more sends', timeoutMs: 30_000 });
    const cancelled = await api.post(`/api/campaigns/${c.id}/cancel`, {});
    expect([cancelled.status, (cancelled.json as any).status]).toEqual([200, 'cancelled']);
    const cancelledAt = Date.now();
    await waitFor(() => Date.now() > cancelledAt + 1500, { what: 'the watch', timeoutMs: 5000 });

    const arrivals = await arrivalsTo(list);
    expect(arrivals.filter((a) => a.at > cancelledAt + 1000)).toEqual([]);
    // none twice, across the pause and the resume
    expect(new Set(arrivals.map((a) => a.to)).size).toBe(arrivals.length);
    expect(maxPerSecond(arrivals.map((a) => a.at))).toBeLessThanOrEqual(10);
    const done = await campaignUntil(api, c.id, (x) => x.counts.queued === 0, 'nothing queued');
    expect(done.status).toBe('cancelled');
    expect(sumOfCounts(done)).toBe(200);
    expect(done.counts.skipped).toBe(200 - arrivals.length);
    const skipped = await allRecipients(api, c.id, 'skipped');
    expect(skipped.every((r) => r.reason === 'cancelled' && !r.message_id)).toBe(true);
    const sentTo = new Set(arrivals.map((a) => a.to.replace(/^\+/, '')));
    expect(skipped.some((r) => sentTo.has(r.to))).toBe(false);
    expect((await api.post(`/api/campaigns/${c.id}/resume`, {})).status).toBe(409);
  }, 120_000);

  it('starts a scheduled campaign by itself at schedule_at', async () => {
    const list = recipients(3, 30_000);
    const at = new Date(Date.now() + 2000);
    const created = await api.post('/api/campaigns', {
      client_id: clientId,
      name: 'Later',
      template_name: 'shipping_notice',
      lang: 'en_US',
      recipients: list,
      schedule_at: at.toISOString(),
    });
    expect([created.status, (created.json as any).status, (created.json as any).schedule_at]).toEqual([201, 'scheduled', at.toISOString()]);
    const c = created.json as any;
    const done = await campaignUntil(api, c.id, (x) => x.status === 'completed', 'the scheduled campaign completed', 60_000);
    expect(new Date(done.started_at).getTime()).toBeGreaterThanOrEqual(at.getTime());
    const arrivals = await arrivalsTo(list);
    expect(arrivals).toHaveLength(3);
    expect(Math.min(...arrivals.map((a) => a.at))).toBeGreaterThanOrEqual(at.getTime());
  }, 90_000);

  it('skips opted-out recipients of a marketing campaign (user_preferences webhook, STOP text, the API), and a 131050 adds to the list', async () => {
    const [byWebhook, byText, byApi, by131050, resumed, normal, byCustom] = [
      '+16505551001',
      '+16505551002',
      '+16505551003',
      '+16505551004',
      '+16505551005',
      '+16505551006',
      '+16505551007',
    ];
    const digits = (n: string) => n.replace(/^\+/, '');
    // the client's own stop keywords (PATCH /api/clients/{id}); STOP stays among them
    const patched = await api.patch(`/api/clients/${clientId}`, { stop_keywords: ['stop', 'Quit'] });
    expect([patched.status, (patched.json as any).stop_keywords]).toEqual([200, ['STOP', 'QUIT']]);
    await sim.userPreferences(phone.phone_number_id, byWebhook, 'stop');
    await sim.inboundMessage(phone.phone_number_id, digits(byText), 'text', { body: ' stop ' });
    await sim.inboundMessage(phone.phone_number_id, digits(byCustom), 'text', { body: 'quit' });
    // a text that merely contains a keyword is no opt-out
    await sim.inboundMessage(phone.phone_number_id, digits(normal), 'text', { body: 'please do not stop' });
    expect((await api.post(`/api/clients/${clientId}/opt-outs`, { users: [byApi] })).json).toEqual({ added: 1 });
    const listed = async () => {
      const res = await api.get(`/api/clients/${clientId}/opt-outs?limit=100`);
      expect(res.status).toBe(200);
      return new Map((res.json as any).data.map((o: any) => [o.user, o.source]));
    };
    // a user who stopped and then resumed is off the list again; the resume is sent once the stop is applied:
    // two signals within one second (the provider's timestamps are in seconds) apply in the order handled (docs/campaigns.md)
    await sim.userPreferences(phone.phone_number_id, resumed, 'stop');
    await waitFor(async () => (await listed()).has(digits(resumed)), { what: 'the stop applied', timeoutMs: 20_000 });
    await sim.userPreferences(phone.phone_number_id, resumed, 'resume');
    // the provider knows this one stopped, the gateway not yet: 131050
    await sim.send('PUT', '/_sim/undeliverable', { numbers: [by131050], code: 131050 });
    const expected: Record<string, string> = {
      [digits(byWebhook)]: 'user_preferences',
      [digits(byText)]: 'stop_keyword',
      [digits(byCustom)]: 'stop_keyword',
      [digits(byApi)]: 'api',
    };
    // each signal is handled on its own: wait until all four are applied and the resume too
    const sorted = (o: Record<string, unknown>) => JSON.stringify(Object.entries(o).sort());
    await waitFor(async () => sorted(Object.fromEntries(await listed())) === sorted(expected), { what: 'four opt-outs', timeoutMs: 20_000 });
    expect(Object.fromEntries(await listed())).toEqual(expected);

    const all = [byWebhook, byText, byApi, by131050, resumed, normal, byCustom].map((to) => ({ to, parameters: { first_name: 'Jo' } }));
    const c = (await api.post('/api/campaigns', { client_id: clientId, name: 'Promo', template_name: 'spring_promo', lang: 'en_US', recipients: all }))
      .json as any;
    expect((await api.post(`/api/campaigns/${c.id}/start`, {})).status).toBe(200);
    const done = await campaignUntil(api, c.id, (x) => x.status === 'completed', 'the promo completed');
    expect(done.counts).toMatchObject({ total: 7, skipped: 4, failed: 1 });
    const rows = new Map((await allRecipients(api, c.id)).map((r) => [r.to, r]));
    for (const u of [byWebhook, byText, byApi, byCustom])
      expect(rows.get(digits(u))).toMatchObject({ status: 'skipped', reason: 'opted_out', message_id: null });
    expect(rows.get(digits(by131050))).toMatchObject({ status: 'failed', error_code: '131050' });
    expect(['sent', 'delivered', 'read']).toContain(rows.get(digits(resumed)).status);
    expect(['sent', 'delivered', 'read']).toContain(rows.get(digits(normal)).status);
    // nothing was sent to the opted-out ones
    expect((await arrivalsTo([{ to: byWebhook }, { to: byText }, { to: byApi }, { to: byCustom }])).length).toBe(0);
    expect((await listed()).get(digits(by131050))).toBe('provider_131050');
    expect((await api.request('DELETE', `/api/clients/${clientId}/opt-outs`, { users: [by131050] })).json).toEqual({ removed: 1 });
  }, 90_000);

  it('slows down on the provider’s 130429 and still sends every recipient once', async () => {
    await sim.setThroughput(phone.phone_number_id, 4);
    const list = recipients(30, 40_000);
    // no cap of its own: the gateway believes the number takes 80 per second, the provider takes 4
    const c = (await api.post('/api/campaigns', { client_id: clientId, name: 'Throttled', template_name: 'shipping_notice', lang: 'en_US', recipients: list }))
      .json as any;
    expect((await api.post(`/api/campaigns/${c.id}/start`, {})).status).toBe(200);
    const done = await campaignUntil(api, c.id, (x) => x.status === 'completed', 'the throttled campaign completed', 120_000);
    expect(done.counts.failed + done.counts.unknown + done.counts.skipped).toBe(0);
    const arrivals = await arrivalsTo(list);
    const refused = arrivals.filter((a) => !a.accepted);
    expect(refused.length).toBeGreaterThan(0);
    const accepted = arrivals.filter((a) => a.accepted);
    expect(accepted).toHaveLength(30);
    expect(new Set(accepted.map((a) => a.to)).size).toBe(30);
    // it slowed down: refusals stop well before the end (the pace settled below the provider's)
    expect(refused.length).toBeLessThan(30);
    await sim.setThroughput(phone.phone_number_id, null);
  }, 150_000);
});
