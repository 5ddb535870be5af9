import { tenantDirectory as td } from '@gateway/contracts';
import { createServiceClient, type ServiceClient } from '@gateway/rpc';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/** A client's lifecycle (issue 28): delete at the provider and in the gateway, deactivate and activate. */
describe('client lifecycle: delete, deactivate, activate', () => {
  let stack: Stack;
  let sim: SimControl;
  let api: ApiClient;
  let other: ApiClient;
  let dir: ServiceClient<typeof td.TenantDirectoryService>;
  let tenantId: string;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'signup', 'edge'] });
    sim = new SimControl(stack.sim!.url);
    const t = await stack.createTenant({ name: 'Lifecycle' });
    ({ api } = t);
    tenantId = t.tenant.id;
    ({ api: other } = await stack.createTenant({ name: 'Other' }));
    dir = createServiceClient(td.TenantDirectoryService, stack.env.TENANT_DIRECTORY_ADDR!);
  }, 90_000);
  afterAll(async () => {
    dir?.close();
    await stack?.stop();
  });

  async function client(owner = api) {
    const phone = await sim.phoneNumber();
    const res = await owner.post('/api/clients', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    expect(res.status).toBe(200);
    return { id: (res.json as any).id as string, phone };
  }
  const send = (clientId: string) => api.post('/api/messaging/send-location', { client_id: clientId, to: '+16505550100', latitude: 1, longitude: 2 });

  it('DELETE deregisters the number and unsubscribes the app at the provider, erases the token, and answers 204', async () => {
    const c = await client();
    await sim.reset();
    const res = await api.delete(`/api/clients/${c.id}`);
    expect(res.status).toBe(204);
    const deregister = await sim.calls(`/${c.phone.phone_number_id}/deregister`);
    expect(deregister.map((x) => x.method)).toEqual(['POST']);
    const unsubscribe = (await sim.calls(`/${c.phone.waba_id}/subscribed_apps`)).filter((x) => x.method === 'DELETE');
    expect(unsubscribe).toHaveLength(1);
    // gone: for the tenant, for sends, and the directory holds no token for it any more
    expect((await api.get(`/api/clients/${c.id}`)).status).toBe(404);
    expect((await send(c.id)).status).toBe(404);
    await expect(dir.getClientCredentials({ tenantId, clientId: c.id })).rejects.toMatchObject({ kind: 'not_found' });
    expect((await api.delete(`/api/clients/${c.id}`)).status).toBe(404);
  });

  it('a provider refusal of the deregistration deletes nothing (502); repeating after it succeeds', async () => {
    const c = await client();
    await sim.failWith('POST', `/${c.phone.phone_number_id}/deregister`, 987654, { message: '(#987654) Unexpected refusal' });
    const refused = await api.delete(`/api/clients/${c.id}`);
    expect(refused.status).toBe(502);
    expect((await api.get(`/api/clients/${c.id}`)).status).toBe(200);
    expect((await dir.getClientCredentials({ tenantId, clientId: c.id })).accessToken).toBe(c.phone.access_token);
    expect((await api.delete(`/api/clients/${c.id}`)).status).toBe(204);
  });

  it('deactivate refuses sends without deleting anything; activate lets them through again', async () => {
    const c = await client();
    const off = await api.post(`/api/clients/${c.id}/deactivate`);
    expect([off.status, (off.json as any).is_active]).toEqual([200, false]);
    expect((await send(c.id)).status).toBe(409);
    const on = await api.post(`/api/clients/${c.id}/activate`);
    expect([on.status, (on.json as any).is_active]).toEqual([200, true]);
    expect((await send(c.id)).status).toBe(200);
  });

  it("another tenant's client is a 404 on every lifecycle route, and stays untouched", async () => {
    const theirs = await client(other);
    for (const res of [
      await api.delete(`/api/clients/${theirs.id}`),
      await api.post(`/api/clients/${theirs.id}/deactivate`),
      await api.post(`/api/clients/${theirs.id}/activate`),
    ])
      expect([res.status, (res.json as any).code]).toEqual([404, 'client_not_found']);
    expect((await other.get(`/api/clients/${theirs.id}`)).json).toMatchObject({ is_active: true });
    expect(await sim.calls(`/${theirs.phone.phone_number_id}/deregister`)).toHaveLength(0);
  });
});
