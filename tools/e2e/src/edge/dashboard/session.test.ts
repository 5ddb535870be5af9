import { createServer } from 'node:http';
import Koa from 'koa';
import { startStack, type ApiResponse, type Stack } from '@gateway/test-stack';
import { waitFor } from '@gateway/testing';
import { SessionCookie } from '@gateway/app-edge';

interface SessionJson {
  tenant_id: string;
  api_key_prefix: string;
  csrf_token: string;
  expires_at: string;
  idle_expires_at: string;
}

/** A browser's view of the edge: a cookie jar of one cookie, and the CSRF header when asked for. */
class CookieClient {
  cookie?: string;
  csrf?: string;
  constructor(private readonly baseUrl: string) {}

  async request<T = unknown>(method: string, path: string, body?: unknown, opts: { csrf?: boolean } = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = {};
    if (this.cookie) headers.cookie = this.cookie;
    if (opts.csrf && this.csrf) headers['x-csrf-token'] = this.csrf;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, json: (text ? JSON.parse(text) : undefined) as T };
  }

  async signIn(apiKey: string): Promise<ApiResponse<SessionJson>> {
    const res = await this.request<SessionJson>('POST', '/dashboard/session', { api_key: apiKey });
    const set = res.headers.get('set-cookie');
    if (set) this.cookie = set.split(';')[0];
    if (res.status === 201) this.csrf = res.json.csrf_token;
    return res;
  }
}

describe('dashboard sessions at the edge: API key in, HttpOnly SameSite=Strict cookie and CSRF token out', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'dispatcher', 'edge'], sim: false });
  }, 90_000);
  afterAll(() => stack?.stop());

  const browser = () => new CookieClient(stack.baseUrl);

  it('signs in with a key: a strict HttpOnly cookie authenticates /api for that tenant; the key is not echoed', async () => {
    const { api, apiKey, tenant } = await stack.createTenant();
    const created = await api.post<{ id: string }>('/api/clients/', { display_name: 'Mine' });
    const b = browser();
    const res = await b.signIn(apiKey);
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).toMatch(/^gw_session=gws_[\w-]{43}; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.json).toMatchObject({ tenant_id: tenant.id, api_key_prefix: apiKey.slice(0, 11) });
    expect(res.text).not.toContain(apiKey);
    expect(res.text).not.toContain(b.cookie!.split('=')[1]);

    const clients = await b.request<{ data: Array<{ id: string }> }>('GET', '/api/clients');
    expect(clients.status).toBe(200);
    expect(clients.json.data.map((c) => c.id)).toEqual([created.json.id]);
    const me = await b.request<SessionJson>('GET', '/dashboard/session');
    expect(me.json).toMatchObject({ tenant_id: tenant.id, csrf_token: b.csrf });
  });

  it('a wrong key is a 401 that sets no cookie; a malformed sign-in is a 422 or 415', async () => {
    const { apiKey } = await stack.createTenant();
    const b = browser();
    const res = await b.signIn(`${apiKey.slice(0, -1)}${apiKey.endsWith('x') ? 'y' : 'x'}`);
    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ code: 'invalid_api_key' });
    expect(res.headers.get('set-cookie')).toBeNull();
    expect((await b.request('POST', '/dashboard/session', {})).status).toBe(422);
    const form = await fetch(`${stack.baseUrl}/dashboard/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `api_key=${apiKey}`,
    });
    expect(form.status).toBe(415);
    expect(form.headers.get('set-cookie')).toBeNull();
  });

  it('refuses a state-changing request made with the cookie but without its CSRF token, and changes nothing', async () => {
    const { api, apiKey } = await stack.createTenant();
    const b = browser();
    await b.signIn(apiKey);
    const refused = await b.request('POST', '/api/clients/', { display_name: 'Forged' });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ code: 'csrf_token_invalid' });
    const other = browser();
    await other.signIn(apiKey);
    b.csrf = other.csrf; // another session's token is not this session's
    expect((await b.request('POST', '/api/clients/', { display_name: 'Forged' }, { csrf: true })).status).toBe(403);
    expect((await api.get<{ data: unknown[] }>('/api/clients')).json.data).toHaveLength(0);
    const ok = await other.request('POST', '/api/clients/', { display_name: 'Real' }, { csrf: true });
    expect(ok.status).toBe(200);
  });

  it('sign-out ends the session server-side: the old cookie no longer works anywhere', async () => {
    const { apiKey } = await stack.createTenant();
    const b = browser();
    await b.signIn(apiKey);
    const oldCookie = b.cookie;
    expect((await b.request('DELETE', '/dashboard/session')).status).toBe(403); // sign-out needs the CSRF token too
    const out = await b.request('DELETE', '/dashboard/session', undefined, { csrf: true });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^gw_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Strict$/);
    const replay = browser();
    replay.cookie = oldCookie;
    expect((await replay.request('GET', '/api/clients')).status).toBe(401);
    expect((await replay.request('GET', '/dashboard/session')).status).toBe(401);
  });

  it('a session of tenant B never reaches tenant A’s clients or deliveries', async () => {
    const a = await stack.createTenant();
    const bTenant = await stack.createTenant();
    const client = (await a.api.post<{ id: string }>('/api/clients/', { display_name: 'A only' })).json;
    const b = browser();
    await b.signIn(bTenant.apiKey);
    for (const path of [`/api/clients/${client.id}`, `/api/clients/${client.id}/webhook/deliveries`]) {
      expect((await b.request('GET', path)).status).toBe(404);
    }
    expect((await b.request('POST', `/api/clients/${client.id}/webhook/test`, undefined, { csrf: true })).status).toBe(404);
    expect((await b.request('PATCH', `/api/clients/${client.id}`, { display_name: 'Taken' }, { csrf: true })).status).toBe(404);
    expect((await b.request<{ data: unknown[] }>('GET', '/api/clients')).json.data).toHaveLength(0);
  });

  it('lists, creates and revokes the tenant’s own keys; revoking a key ends its sessions; the current key needs confirming', async () => {
    const t = await stack.createTenant();
    const b = browser();
    await b.signIn(t.apiKey);
    const currentPrefix = t.apiKey.slice(0, 11);

    const created = await b.request<{ api_key: string; prefix: string; created_at: string }>('POST', '/api/api-keys', undefined, { csrf: true });
    expect(created.status).toBe(201);
    expect(created.json.api_key.startsWith(`${created.json.prefix}_`)).toBe(true);
    const list = await b.request<{
      data: Array<{ prefix: string; current: boolean; revoked_at: string | null; last_used_at: string | null; created_at: string }>;
    }>('GET', '/api/api-keys');
    expect(list.json.data.map((k) => [k.prefix, k.current, k.revoked_at])).toEqual([
      [currentPrefix, true, null],
      [created.json.prefix, false, null],
    ]);
    expect(list.text).not.toContain(created.json.api_key);

    // a session opened with the new key ends when that key is revoked
    const second = browser();
    expect((await second.signIn(created.json.api_key)).status).toBe(201);
    expect((await b.request('DELETE', `/api/api-keys/${created.json.prefix}`, undefined, { csrf: true })).status).toBe(204);
    expect((await second.request('GET', '/api/clients')).status).toBe(401);
    await waitFor(async () => (await stack.api(created.json.api_key).get('/api/clients')).status === 401, {
      timeoutMs: 8000,
      what: 'the revoked key to stop working',
    });

    // another tenant's key is not found; a malformed prefix is a 422
    const other = await stack.createTenant();
    expect((await b.request('DELETE', `/api/api-keys/${other.apiKey.slice(0, 11)}`, undefined, { csrf: true })).status).toBe(404);
    expect((await other.api.get('/api/clients')).status).toBe(200);
    expect((await b.request('DELETE', '/api/api-keys/nope', undefined, { csrf: true })).status).toBe(422);

    // the key of this very session: refused until confirmed, then the session is over
    const refused = await b.request('DELETE', `/api/api-keys/${currentPrefix}`, undefined, { csrf: true });
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 'current_api_key' });
    expect((await b.request('GET', '/api/clients')).status).toBe(200);
    expect((await b.request('DELETE', `/api/api-keys/${currentPrefix}?confirm=true`, undefined, { csrf: true })).status).toBe(204);
    expect((await b.request('GET', '/api/clients')).status).toBe(401);
  });

  it('bearer callers manage keys too; revoking the bearer’s own key needs confirming', async () => {
    const t = await stack.createTenant();
    const prefix = t.apiKey.slice(0, 11);
    expect((await t.api.get<{ data: Array<{ current: boolean }> }>('/api/api-keys')).json.data).toEqual([expect.objectContaining({ prefix, current: true })]);
    expect((await t.api.delete(`/api/api-keys/${prefix}`)).status).toBe(409);
    expect((await t.api.delete(`/api/api-keys/${prefix}?confirm=true`)).status).toBe(204);
  });
});

describe('the session cookie behind an https public URL', () => {
  it('is Secure and __Host- prefixed', async () => {
    const cookie = new SessionCookie('https://gateway.example.com');
    const app = new Koa();
    app.use((ctx) => {
      cookie.set(ctx, 'gws_token', new Date(Date.now() + 3600_000));
      ctx.body = 'ok';
    });
    const server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
      expect(res.headers.get('set-cookie')).toMatch(/^__Host-gw_session=gws_token; Path=\/; Max-Age=(3599|3600); HttpOnly; SameSite=Strict; Secure$/);
    } finally {
      // the fetch's keep-alive socket would hold the server open past the suite
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
