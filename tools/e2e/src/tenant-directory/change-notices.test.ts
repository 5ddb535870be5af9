import { startStack, type Stack } from '@gateway/test-stack';
import { startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

/**
 * The tenant directory's change notices: every cache of the changed value (edge API keys, messaging
 * credentials, dispatcher targets) drops it before the change is answered, so the very next request or event
 * sees it. The caches keep their default TTLs here (seconds): only the notice can explain a pass.
 */
describe('directory changes apply to the very next request and event', () => {
  let stack: Stack;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'dispatcher', 'edge'] });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await stack?.stop();
  });

  const receiver = async () => {
    const r = await startWebhookReceiver();
    receivers.push(r);
    return r;
  };

  it('a PATCHed webhook_url: the test event requested right after goes to the new URL', async () => {
    const [before, after] = [await receiver(), await receiver()];
    const { api } = await stack.createTenant();
    const clientId = ((await api.post('/api/clients/', { display_name: 'Moving', webhook_url: before.url })).json as { id: string }).id;
    // the dispatcher has the old target cached
    const first = (await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string };
    await waitFor(() => before.byEventId(first.event_id).length === 1, { what: 'first test event at the old URL' });

    expect((await api.patch(`/api/clients/${clientId}`, { webhook_url: after.url })).status).toBe(200);
    const second = (await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string };
    await waitFor(() => after.byEventId(second.event_id).length === 1, { what: 'second test event at the new URL' });
    expect(before.byEventId(second.event_id)).toHaveLength(0);
  });

  it("the tenant's new webhook URL applies to the next event of a client without its own", async () => {
    const [before, after] = [await receiver(), await receiver()];
    const { api } = await stack.createTenant({ webhook_url: before.url });
    const clientId = ((await api.post('/api/clients/', { display_name: 'Tenant URL' })).json as { id: string }).id;
    const first = (await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string };
    await waitFor(() => before.byEventId(first.event_id).length === 1, { what: 'first test event at the old tenant URL' });
    expect((await api.put('/api/tenants/webhook-url', { webhook_url: after.url })).status).toBe(200);
    const second = (await api.post(`/api/clients/${clientId}/webhook/test`)).json as { event_id: string };
    await waitFor(() => after.byEventId(second.event_id).length === 1, { what: 'second test event at the new tenant URL' });
    expect(before.byEventId(second.event_id)).toHaveLength(0);
  });

  it('a revoked API key is refused on the very next request', async () => {
    const { tenant } = await stack.createTenant();
    const created = (await stack.admin().post(`/admin/tenants/${tenant.id}/api-keys`)).json as { api_key: string; prefix: string };
    const key = stack.api(created.api_key);
    expect((await key.get('/api/clients')).status).toBe(200); // cached by the edge now
    expect((await stack.admin().delete(`/admin/tenants/${tenant.id}/api-keys/${created.prefix}`)).status).toBe(204);
    const next = await key.get('/api/clients');
    expect(next.status).toBe(401);
  });

  it('a deactivated client is refused on its very next send, and sends again once reactivated', async () => {
    const phone = (await (
      await fetch(`${stack.sim!.url}/_sim/phone-numbers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
    ).json()) as {
      phone_number_id: string;
      waba_id: string;
      access_token: string;
    };
    const { api } = await stack.createTenant();
    const clientId = (
      (
        await api.post('/api/clients/', {
          display_name: 'Sender',
          business_account_id: phone.waba_id,
          phone_number_id: phone.phone_number_id,
          access_token: phone.access_token,
        })
      ).json as { id: string }
    ).id;
    // the recipient wrote in: free-form messages need the provider's 24-hour window open
    await fetch(`${stack.sim!.url}/_sim/inbound/message`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ phone_number_id: phone.phone_number_id, from: '16505551234' }),
    });
    const send = () => api.post('/api/messaging/send-location', { client_id: clientId, to: '+16505551234', latitude: 1, longitude: 2 });
    expect((await send()).status).toBe(200); // messaging has the credentials cached now

    const off = await api.patch(`/api/clients/${clientId}`, { is_active: false });
    expect(off.status).toBe(200);
    expect(off.json).toMatchObject({ is_active: false });
    const refused = await send();
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 'client_not_active' });

    expect((await api.patch(`/api/clients/${clientId}`, { is_active: true })).status).toBe(200);
    expect((await send()).status).toBe(200);
  });

  it('a pending client cannot be activated by PATCH (409), and a bad is_active is a 422', async () => {
    const { api } = await stack.createTenant();
    const clientId = ((await api.post('/api/clients/', { display_name: 'Pending' })).json as { id: string }).id;
    const res = await api.patch(`/api/clients/${clientId}`, { is_active: true });
    expect(res.status).toBe(409);
    expect(res.json).toMatchObject({ code: 'signup_not_completed' });
    const bad = await api.patch<{ detail: Array<{ loc: string[] }> }>(`/api/clients/${clientId}`, { is_active: 'yes please' });
    expect(bad.status).toBe(422);
    expect(bad.json.detail[0].loc).toEqual(['body', 'is_active']);
  });
});
