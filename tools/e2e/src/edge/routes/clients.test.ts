import { startStack, type Stack } from '@gateway/test-stack';

describe('tenants and clients through edge → gRPC → tenant-directory → storage', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'edge'], sim: false });
  });
  afterAll(() => stack.stop());

  it('creates a tenant, authenticates with its key and sets the webhook URL', async () => {
    const { tenant, api } = await stack.createTenant({ name: 'Acme', email: 'ops@acme.test', plan: 'pro', billing_customer_id: 'cus_1' });
    expect(tenant).toMatchObject({
      name: 'Acme',
      email: 'ops@acme.test',
      plan: 'pro',
      active_wabas: 0,
      webhook_url: null,
      billing_customer_id: 'cus_1',
      billing_subscription_id: null,
    });
    expect(tenant.webhook_secret).toMatch(/^whsec_/);
    const res = await api.put('/api/tenants/webhook-url', { webhook_url: 'https://hooks.acme.test/wa' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.json as object).sort()).toEqual(
      ['active_wabas', 'billing_customer_id', 'billing_subscription_id', 'created_at', 'email', 'id', 'name', 'plan', 'webhook_secret', 'webhook_url'].sort(),
    );
    expect(res.json).toMatchObject({ id: tenant.id, webhook_url: 'https://hooks.acme.test/wa', webhook_secret: tenant.webhook_secret });
    const admin = await stack.admin().get(`/admin/tenants/${tenant.id}`);
    expect(admin.json).toMatchObject({ webhook_url: 'https://hooks.acme.test/wa' });
  });

  it('registers a pending placeholder and an active client, patches each field alone, reads and lists them', async () => {
    const { api, tenant } = await stack.createTenant();
    const pending = await api.post('/api/clients/', { display_name: 'Pending shop', success_redirect_url: 'https://acme.test/ok' });
    expect(pending.status).toBe(200);
    const p = pending.json as Record<string, unknown>;
    expect(p).toMatchObject({
      tenant_id: tenant.id,
      is_active: false,
      signup_status: 'pending',
      business_account_id: null,
      phone_number_id: null,
      webhook_registered: false,
      success_redirect_url: 'https://acme.test/ok',
    });
    expect(p.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(p.embed_signup_url).toBe(`${stack.env.PUBLIC_BASE_URL}/signup/${p.id}`);

    const active = await api.post('/api/clients/', {
      display_name: 'Live shop',
      external_id: 'ext-1',
      business_account_id: '1020',
      phone_number_id: '3040',
      access_token: 'EAAG-secret-token',
      catalog_id: 'cat-1',
    });
    expect(active.status).toBe(200);
    const a = active.json as Record<string, unknown>;
    expect(a).toMatchObject({
      is_active: true,
      signup_status: 'completed',
      business_account_id: '1020',
      phone_number_id: '3040',
      external_id: 'ext-1',
      catalog_id: 'cat-1',
    });
    expect(active.text).not.toContain('EAAG-secret-token');

    const patches: Array<[string, unknown]> = [
      ['display_name', 'Renamed'],
      ['external_id', 'ext-2'],
      ['webhook_url', 'https://hooks.acme.test/client'],
    ];
    for (const [field, value] of patches) {
      const before = (await api.get(`/api/clients/${a.id}`)).json as Record<string, unknown>;
      const res = await api.patch(`/api/clients/${a.id}`, { [field]: value });
      expect(res.status).toBe(200);
      const after = res.json as Record<string, unknown>;
      expect(after[field]).toBe(value);
      for (const k of Object.keys(before)) if (k !== field && k !== 'updated_at') expect(after[k]).toEqual(before[k]);
    }
    const cleared = await api.patch(`/api/clients/${a.id}`, { webhook_url: null });
    expect((cleared.json as Record<string, unknown>).webhook_url).toBeNull();

    const t = await stack.admin().get(`/admin/tenants/${tenant.id}`);
    expect((t.json as { active_wabas: number }).active_wabas).toBe(1);

    const page1 = await api.get('/api/clients?limit=1');
    const body1 = page1.json as { data: Array<{ id: string }>; next_cursor: string };
    expect(body1.data).toHaveLength(1);
    expect(body1.data[0].id).toBe(a.id);
    const page2 = await api.get(`/api/clients?limit=1&cursor=${body1.next_cursor}`);
    const body2 = page2.json as { data: Array<{ id: string }>; next_cursor: string | null };
    expect(body2.data.map((c) => c.id)).toEqual([p.id]);
    expect(body2.next_cursor).toBeNull();
  });

  it('refuses a phone number already registered to another client', async () => {
    const { api } = await stack.createTenant();
    const body = { display_name: 'A', business_account_id: '77', phone_number_id: '7777', access_token: 't' };
    expect((await api.post('/api/clients', body)).status).toBe(200);
    const again = await api.post('/api/clients', body);
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ detail: expect.any(String), code: 'phone_number_in_use' });
  });
});
