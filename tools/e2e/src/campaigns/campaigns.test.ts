import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';
import { allRecipients, campaign, campaignUntil, clientWithTemplates, maxPerSecond, recipients, sumOfCounts, type SimPhone } from './testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/*
 * Campaigns through the whole stack (issue 26): edge → messaging (its runner, pacing in the database) → the
 * provider simulator, which enforces each number's throughput (130429) and records when every send arrived;
 * its status webhooks come back through the edge. Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
describe('campaigns: a template to many recipients, paced to the number, each sent once', () => {
  let stack: Stack;
  let sim: SimControl;
  let api: ApiClient;
  let other: ApiClient;
  let clientId: string;
  let phone: SimPhone;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    // the messaging service and the dispatcher in processes of their own, as deployed: the simulator's arrival times are
    // not those of one busy event loop (PGlite blocks the loop it runs in)
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'dispatcher', 'edge'], processes: ['messaging', 'dispatcher'] });
    sim = new SimControl(stack.sim!.url);
    ({ api } = await stack.createTenant({ name: 'Sender', webhook_url: receiver.url }));
    ({ api: other } = await stack.createTenant({ name: 'Other' }));
    ({ clientId, phone } = await clientWithTemplates(stack, api));
    await sim.autoStatuses(true);
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  it('sends 300 recipients at 20 per second: never more than 20 arrive in any one-second window, each exactly once, counts add up, statuses reach the recipients', async () => {
    await sim.setThroughput(phone.phone_number_id, 20);
    const list = recipients(300, 1000);
    const created = await api.post('/api/campaigns', {
      client_id: clientId,
      name: 'Shipping',
      template_name: 'shipping_notice',
      lang: 'en_US',
      // one duplicate: sent once
      recipients: [...list, list[0]],
      rate_per_second: 20,
    });
    expect(created.status).toBe(201);
    const c = created.json as any;
    expect(c).toMatchObject({ status: 'draft', rate_per_second: 20, counts: { total: 300, queued: 300, sent: 0 } });
    const started = await api.post(`/api/campaigns/${c.id}/start`, {});
    expect([started.status, (started.json as any).status]).toEqual([200, 'running']);

    const done = await campaignUntil(api, c.id, (x) => x.status === 'completed', 'the campaign completed', 120_000);
    expect(sumOfCounts(done)).toBe(300);
    expect(done.counts.total).toBe(300);
    // every message was delivered and read (the simulator's statuses), none failed, none twice
    expect(done.counts.delivered + done.counts.read).toBe(300);
    expect([done.counts.failed, done.counts.unknown, done.counts.queued, done.counts.skipped]).toEqual([0, 0, 0, 0]);

    const arrivals = await sim.sends(phone.phone_number_id);
    const ours = arrivals.filter((a) => list.some((r) => r.to === a.to));
    // every attempt, refused ones included, kept to the limit; none was refused
    expect(maxPerSecond(ours.map((a) => a.at))).toBeLessThanOrEqual(20);
    expect(ours.filter((a) => !a.accepted)).toEqual([]);
    const byRecipient = new Map<string, number>();
    for (const a of ours) byRecipient.set(a.to, (byRecipient.get(a.to) ?? 0) + 1);
    expect(byRecipient.size).toBe(300);
    expect([...byRecipient.values()].every((n) => n === 1)).toBe(true);
    // paced, not trickled: 300 at 20 per second take at least 14 s and not much more than 15.8 s
    const span = Math.max(...ours.map((a) => a.at)) - Math.min(...ours.map((a) => a.at));
    expect(span).toBeGreaterThan(14_000);

    const rows = await allRecipients(api, c.id);
    expect(rows).toHaveLength(300);
    expect(new Set(rows.map((r) => r.message_id)).size).toBe(300);
    expect(rows.every((r) => ['delivered', 'read'].includes(r.status) && r.message_id)).toBe(true);
    // the simulator reads every message in the end: the read statuses reach every recipient and the count
    await campaignUntil(api, c.id, (x) => x.counts.read === 300, 'every recipient read');
    const read = await allRecipients(api, c.id, 'read');
    expect(read).toHaveLength(300);

    const csv = await api.get(`/api/campaigns/${c.id}/recipients.csv`);
    expect([csv.status, csv.headers.get('content-type')]).toEqual([200, expect.stringMatching(/^text\/csv/)]);
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe('to,status,message_id,error_code,reason,updated_at');
    expect(lines).toHaveLength(301);
    await sim.setThroughput(phone.phone_number_id, null);

    // campaign_status events, delivered to the tenant's webhook like every other event
    const events = () =>
      receiver
        .byType('campaign_status')
        .map((r) => (r.body as any).payload)
        .filter((p) => p.campaign_id === c.id);
    await waitFor(() => events().length >= 2, { what: 'started and completed events', timeoutMs: 30_000 });
    expect(events().map((p) => p.event)).toEqual(['started', 'completed']);
    expect(events()[0]).toMatchObject({ name: 'Shipping', status: 'running', counts: { total: 300 } });
    expect(events()[1]).toMatchObject({ status: 'completed', counts: { total: 300, queued: 0, failed: 0 } });
  }, 180_000);

  it('refuses a campaign the template cannot take, naming the field, before anything is stored', async () => {
    const base = { client_id: clientId, name: 'Bad', lang: 'en_US' };
    const unknown = await api.post('/api/campaigns', { ...base, template_name: 'no_such_template', recipients: recipients(1) });
    expect([unknown.status, (unknown.json as any).detail[0].loc]).toEqual([422, ['body', 'template_name']]);
    const wrongCount = await api.post('/api/campaigns', {
      ...base,
      template_name: 'shipping_notice',
      recipients: [{ to: '+16505550001', parameters: ['only one'] }],
    });
    expect([wrongCount.status, (wrongCount.json as any).detail[0].loc]).toEqual([422, ['body', 'recipients', '0', 'parameters']]);
    const wrongLang = await api.post('/api/campaigns', { ...base, template_name: 'shipping_notice', lang: 'de_DE', recipients: recipients(1) });
    expect([wrongLang.status, (wrongLang.json as any).detail[0].loc]).toEqual([422, ['body', 'lang']]);
    const list = await api.get(`/api/campaigns?client_id=${clientId}`);
    expect((list.json as any).data.map((x: any) => x.name)).not.toContain('Bad');
  });

  it('gives another tenant 404 on every campaign and opt-out route, and never shows its campaigns', async () => {
    const created = await api.post('/api/campaigns', {
      client_id: clientId,
      name: 'Private',
      template_name: 'shipping_notice',
      lang: 'en_US',
      recipients: recipients(2, 5000),
    });
    const id = (created.json as any).id;
    const answers = [
      await other.get(`/api/campaigns/${id}`),
      await other.get(`/api/campaigns?client_id=${clientId}`),
      await other.post('/api/campaigns', { client_id: clientId, name: 'X', template_name: 'shipping_notice', lang: 'en_US' }),
      await other.post(`/api/campaigns/${id}/recipients`, { recipients: recipients(1, 6000) }),
      await other.get(`/api/campaigns/${id}/recipients`),
      await other.post(`/api/campaigns/${id}/start`, {}),
      await other.post(`/api/campaigns/${id}/pause`, {}),
      await other.post(`/api/campaigns/${id}/resume`, {}),
      await other.post(`/api/campaigns/${id}/cancel`, {}),
      await other.get(`/api/clients/${clientId}/opt-outs`),
      await other.post(`/api/clients/${clientId}/opt-outs`, { users: ['+16505559999'] }),
      await other.request('DELETE', `/api/clients/${clientId}/opt-outs`, { users: ['+16505559999'] }),
    ];
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 404));
    const csv = await fetch(`${stack.baseUrl}/api/campaigns/${id}/recipients.csv`, { headers: { authorization: `Bearer ${other.token}` } });
    expect(csv.status).toBe(404);
    const upload = await fetch(`${stack.baseUrl}/api/campaigns/${id}/recipients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${other.token}`, 'content-type': 'text/csv' },
      body: 'to,1,2\n+16505550001,a,b\n',
    });
    expect(upload.status).toBe(404);
    // untouched
    expect(await campaign(api, id)).toMatchObject({ status: 'draft', counts: { total: 2 } });
    await waitFor(async () => (await api.post(`/api/campaigns/${id}/cancel`, {})).status === 200, { what: 'cancel' });
  });
});
