import { startStack, type Stack } from '@gateway/test-stack';

describe('authentication at the edge', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'edge'], sim: false, env: { AUTH_CACHE_TTL_MS: '4000' } });
  });
  afterAll(() => stack.stop());

  const expect401 = (res: { status: number; headers: Headers; json: unknown }) => {
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.json).toEqual({ detail: 'Missing or invalid bearer token', code: 'unauthorized' });
  };

  it('rejects a missing header, a malformed header and an unknown key alike', async () => {
    const api = stack.api();
    expect401(await api.get('/api/clients'));
    expect401(await api.get('/api/clients', { authorization: 'Basic abc' }));
    expect401(await api.get('/api/clients', { authorization: 'Bearer' }));
    expect401(await api.get('/api/clients', { authorization: 'Bearer two words' }));
    expect401(await stack.api('gw_unknown0_' + 'x'.repeat(43)).get('/api/clients'));
  });

  it('keeps the admin token and tenant keys apart', async () => {
    const { api, apiKey, tenant } = await stack.createTenant();
    expect401(await stack.admin().get('/api/clients'));
    expect401(await stack.api(apiKey).get(`/admin/tenants/${tenant.id}`));
    expect401(await stack.api(apiKey).post('/admin/tenants', { name: 'x', email: 'x@y.z' }));
    expect((await api.get('/api/clients')).status).toBe(200);
  });

  it('accepts several keys at once and stops a revoked key within 5 seconds', async () => {
    const { tenant, apiKey } = await stack.createTenant();
    const second = await stack.admin().post(`/admin/tenants/${tenant.id}/api-keys`);
    expect(second.status).toBe(201);
    const { api_key: key2, prefix } = second.json as { api_key: string; prefix: string };
    expect(key2.startsWith(prefix)).toBe(true);
    expect((await stack.api(apiKey).get('/api/clients')).status).toBe(200);
    expect((await stack.api(key2).get('/api/clients')).status).toBe(200);

    const listed = await stack.admin().get(`/admin/tenants/${tenant.id}/api-keys`);
    const keys = (listed.json as { data: Array<{ prefix: string; revoked_at: string | null }> }).data;
    expect(keys).toHaveLength(2);
    expect(listed.text).not.toContain(key2);

    const revokedAt = Date.now();
    expect((await stack.admin().delete(`/admin/tenants/${tenant.id}/api-keys/${prefix}`)).status).toBe(204);
    let status = 200;
    while (status === 200 && Date.now() - revokedAt < 6000) {
      status = (await stack.api(key2).get('/api/clients')).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(401);
    expect(Date.now() - revokedAt).toBeLessThan(5000);
    // the other key keeps working
    expect((await stack.api(apiKey).get('/api/clients')).status).toBe(200);
  });

  it('does not ask the tenant directory on every request once a key is warm', async () => {
    const { api } = await stack.createTenant();
    const metricsPort = stack.running.get('tenant-directory')!.metricsPort;
    const authCalls = async () => {
      const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('grpc_server_requests_total{method="TenantDirectoryService/AuthenticateApiKey",code="0"'));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    await api.get('/api/clients');
    const before = await authCalls();
    const started = Date.now();
    for (let i = 0; i < 50; i++) expect((await api.get('/api/clients')).status).toBe(200);
    // past half the 4 s TTL an entry is refreshed in the background: at most one refresh per 2 s the 50
    // requests took (one, on an idle machine), never one per request
    const refreshWindows = Math.max(1, Math.ceil((Date.now() - started) / 2000));
    const asked = (await authCalls()) - before;
    expect(asked).toBeLessThanOrEqual(Math.min(refreshWindows, 10));
  });

  it('answers admin calls for unknown tenants and keys with 404', async () => {
    const admin = stack.admin();
    const res = await admin.get('/admin/tenants/00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect((res.json as { code: string }).code).toBe('tenant_not_found');
    const { tenant } = await stack.createTenant();
    expect((await admin.delete(`/admin/tenants/${tenant.id}/api-keys/gw_zzzzzzzz`)).status).toBe(404);
  });
});
