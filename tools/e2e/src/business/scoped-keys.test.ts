import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/** Scoped API keys (issue 28): scopes, a client restriction and an expiry, enforced on every /api route. */
describe('scoped API keys', () => {
  let stack: Stack;
  let owner: ApiClient;
  let clientA: string;
  let clientB: string;
  let otherTenantsClient: string;

  const register = async (api: ApiClient, sim: SimControl) => {
    const phone = await sim.phoneNumber();
    const res = await api.post('/api/clients', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    expect(res.status).toBe(200);
    return (res.json as any).id as string;
  };
  const keyWith = async (body: Record<string, unknown>) => {
    const res = await owner.post('/api/api-keys', body);
    if (res.status !== 201) throw new Error(res.text);
    return { api: stack.api((res.json as any).api_key), prefix: (res.json as any).prefix as string };
  };
  const send = (api: ApiClient, clientId: string) =>
    api.post('/api/messaging/send-location', { client_id: clientId, to: '+16505550100', latitude: 1, longitude: 2 });

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'] });
    const sim = new SimControl(stack.sim!.url);
    ({ api: owner } = await stack.createTenant({ name: 'Scoped' }));
    clientA = await register(owner, sim);
    clientB = await register(owner, sim);
    const other = await stack.createTenant({ name: 'Other' });
    otherTenantsClient = await register(other.api, sim);
  }, 90_000);
  afterAll(() => stack?.stop());

  it('a key made without scopes (as every earlier key) may do everything', async () => {
    expect((await send(owner, clientA)).status).toBe(200);
    const keys = (await owner.get('/api/api-keys')).json as any;
    expect(keys.data[0]).toMatchObject({ scopes: [], client_ids: [] });
  });

  it('a key scoped to messages:read cannot send: 403 insufficient_scope naming messages:send; it may read messages', async () => {
    const { api } = await keyWith({ scopes: ['messages:read'] });
    const res = await send(api, clientA);
    expect([res.status, (res.json as any).code, (res.json as any).scope]).toEqual([403, 'insufficient_scope', 'messages:send']);
    // reading a message is allowed
    const sent = await send(owner, clientA);
    const read = await api.get(`/api/messages/${encodeURIComponent(sent.headers.get('x-message-id')!)}?client_id=${clientA}`);
    expect(read.status).toBe(200);
    // nor may it read clients (read_only) or make keys (keys:write)
    expect((await api.get('/api/clients')).json).toMatchObject({ code: 'insufficient_scope', scope: 'read_only' });
    expect((await api.post('/api/api-keys', {})).json).toMatchObject({ code: 'insufficient_scope', scope: 'keys:write' });
  });

  it('a key limited to one client gets 404 for another, by path, query or body', async () => {
    const { api } = await keyWith({ scopes: ['messages:send', 'read_only'], client_ids: [clientA] });
    expect((await send(api, clientA)).status).toBe(200);
    const other = await send(api, clientB);
    expect([other.status, (other.json as any).code]).toEqual([404, 'client_not_found']);
    expect((await api.get(`/api/clients/${clientA}`)).status).toBe(200);
    expect((await api.get(`/api/clients/${clientB}`)).status).toBe(404);
    expect((await api.get(`/api/templates?client_id=${clientB}`)).status).toBe(404);
    // its client list holds its client only
    expect(((await api.get('/api/clients')).json as any).data.map((c: any) => c.id)).toEqual([clientA]);
    expect(((await owner.get('/api/clients')).json as any).data).toHaveLength(2);
    // listed with its restrictions
    const keys = (await owner.get('/api/api-keys')).json as any;
    expect(keys.data.find((k: any) => k.client_ids.length)).toMatchObject({ scopes: ['messages:send', 'read_only'], client_ids: [clientA] });
  });

  it('refuses unknown scopes and clients of another tenant with a 422', async () => {
    const bad = await owner.post('/api/api-keys', { scopes: ['everything'] });
    expect(bad.status).toBe(422);
    expect((bad.json as any).detail[0].loc).toEqual(['body', 'scopes', expect.anything()]);
    const foreign = await owner.post('/api/api-keys', { client_ids: [otherTenantsClient] });
    expect(foreign.status).toBe(422);
    expect((foreign.json as any).detail[0].loc).toEqual(['body', 'client_ids']);
  });

  it('an expired key is refused (401 api_key_expired)', async () => {
    const { api } = await keyWith({ expires_at: new Date(Date.now() + 1500).toISOString() });
    expect((await api.get('/api/clients')).status).toBe(200);
    const refused = await waitFor(
      async () => {
        const res = await api.get('/api/clients');
        return res.status === 401 ? res : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250 },
    );
    expect((refused.json as any).code).toBe('api_key_expired');
  });
});
