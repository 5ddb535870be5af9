import type { ApiClient, Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';
import {
  allRecipients,
  campaignUntil,
  campaignWorld,
  type CampaignWorld,
  clientRecord,
  clientWithTemplates,
  createAndStart,
  recipients,
  sendNotice,
  type SimPhone,
} from './testing';

/*
 * The business portfolio's messaging limit (issue 26; provider-2026.md §5): unique users per rolling 24 hours. The
 * simulator enforces it like the provider (a template beyond it is accepted, then fails with 131049) and announces
 * its tier with `business_capability_update`; the gateway keeps a campaign within the client's `messaging_limit`
 * (recipients beyond it `deferred`, sent once the window has room) and defers on the provider's 131049 too.
 */
describe('campaigns: the portfolio messaging limit', () => {
  let stack: Stack;
  let sim: SimControl;
  let api: ApiClient;
  let clientId: string;
  let phone: SimPhone;
  let arrivalsTo: CampaignWorld['arrivalsTo'];

  beforeAll(async () => {
    ({ stack, sim, api, clientId, phone, arrivalsTo } = await campaignWorld());
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('defers the recipients beyond the unique users the window has room for, and sends them once it has room', async () => {
    await sim.setMessagingLimit(phone.phone_number_id, { unique_users: 5 });
    await waitFor(async () => (await clientRecord(api, clientId)).messaging_limit === '5', { what: 'the limit reported', timeoutMs: 30_000 });
    const list = recipients(8, 70_000);
    const c = await createAndStart(api, { client_id: clientId, name: 'Limited', template_name: 'shipping_notice', lang: 'en_US', recipients: list });
    const held = await campaignUntil(api, c.id, (x) => x.counts.deferred === 3 && x.counts.queued === 0 && x.counts.sent === 0, 'three deferred', 60_000);
    expect(held.status).toBe('running');
    expect([held.counts.failed, held.counts.unknown, held.counts.delivered + held.counts.read]).toEqual([0, 0, 5]);
    // the last three of the list wait, named as such, never called for
    const deferred = await allRecipients(api, c.id, 'deferred');
    expect(deferred.map((r) => r.to).sort()).toEqual(list.slice(5).map((r) => r.to.replace(/^\+/, '')));
    expect(deferred.every((r) => r.reason === 'messaging_limit' && !r.message_id)).toBe(true);
    // the first five (calls a few ms apart may reach the provider in either order)
    expect((await arrivalsTo(list)).map((a) => a.to).sort()).toEqual(list.slice(0, 5).map((r) => r.to));

    // the provider moves the portfolio up a tier: the window has room, the three go by themselves
    await sim.setMessagingLimit(phone.phone_number_id, { tier: 'TIER_250' });
    const done = await campaignUntil(api, c.id, (x) => x.status === 'completed', 'the campaign completed', 60_000);
    expect(done.counts).toMatchObject({ total: 8, deferred: 0, failed: 0, unknown: 0 });
    expect(done.counts.delivered + done.counts.read).toBe(8);
    const arrivals = await arrivalsTo(list);
    expect(arrivals).toHaveLength(8);
    expect(new Set(arrivals.map((a) => a.to)).size).toBe(8);
  }, 120_000);

  it("defers on the provider's 131049 (a limit the gateway was not told of) instead of failing", async () => {
    // the portfolio reached 8 users; the provider now takes one more, the gateway still believes 250
    const { used } = await sim.setMessagingLimit(phone.phone_number_id, { unique_users: 9 }, { notify: false });
    expect(used).toBe(8);
    const list = recipients(3, 71_000);
    const c = await createAndStart(api, { client_id: clientId, name: 'Refused', template_name: 'shipping_notice', lang: 'en_US', recipients: list });
    const held = await campaignUntil(api, c.id, (x) => x.counts.deferred === 2 && x.counts.sent === 0 && x.counts.queued === 0, 'two deferred', 60_000);
    expect([held.status, held.counts.failed, held.counts.unknown, held.counts.delivered + held.counts.read]).toEqual(['running', 0, 0, 1]);
    const deferred = await allRecipients(api, c.id, 'deferred');
    expect(deferred.map((r) => [r.to, r.error_code, r.reason])).toEqual(list.slice(1).map((r) => [r.to.replace(/^\+/, ''), '131049', 'provider_131049']));
    // each was called for once: accepted, then refused by a failed status
    expect((await arrivalsTo(list)).map((a) => a.to)).toEqual(list.map((r) => r.to));
    // a cancel skips the waiting ones
    expect((await api.post(`/api/campaigns/${c.id}/cancel`, {})).status).toBe(200);
    const cancelled = await campaignUntil(api, c.id, (x) => x.counts.deferred === 0, 'nothing deferred');
    expect(cancelled.counts.skipped).toBe(2);
    await sim.setMessagingLimit(phone.phone_number_id, { tier: 'TIER_UNLIMITED' }, { notify: false });
  }, 120_000);

  it("counts the tenant's own template sends in the window: a campaign leaves them their room", async () => {
    // a portfolio of its own, limited to 3 users a day at the provider and in the gateway
    const own = await clientWithTemplates(stack, api);
    await sim.setMessagingLimit(own.phone.phone_number_id, { unique_users: 3 });
    await waitFor(async () => (await clientRecord(api, own.clientId)).messaging_limit === '3', { what: 'the limit reported', timeoutMs: 30_000 });
    const single = await sendNotice(api, own.clientId, '+16500072000');
    expect(single.status).toBe(200);
    const list = recipients(3, 72_001);
    const c = await createAndStart(api, { client_id: own.clientId, name: 'After a send', template_name: 'shipping_notice', lang: 'en_US', recipients: list });
    const held = await campaignUntil(api, c.id, (x) => x.counts.deferred === 1 && x.counts.queued === 0 && x.counts.sent === 0, 'one deferred', 60_000);
    expect([held.counts.failed, held.counts.delivered + held.counts.read]).toEqual([0, 2]);
    // deferred by the gateway's count, never called for: the provider refused nothing
    expect((await allRecipients(api, c.id, 'deferred')).map((r) => [r.to, r.reason])).toEqual([[list[2].to.replace(/^\+/, ''), 'messaging_limit']]);
    const arrivals = (await sim.sends(own.phone.phone_number_id)).map((a) => a.to);
    expect(arrivals).toEqual(['+16500072000', list[0].to, list[1].to]);
    expect((await api.post(`/api/campaigns/${c.id}/cancel`, {})).status).toBe(200);
  }, 120_000);
});
