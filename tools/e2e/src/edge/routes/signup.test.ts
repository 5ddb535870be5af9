import { get as httpGet } from 'node:http';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl } from '@gateway/testing';

interface PageConfig {
  client_id: string;
  state: string;
  app_id: string;
  config_id: string;
  sdk_url: string;
  provider_origins: string[];
  complete_url: string;
}

interface Issue {
  loc: string[];
  type: string;
}

describe('hosted signup page and its completion endpoints', () => {
  let stack: Stack;
  let api: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'signup', 'edge'] });
    api = (await stack.createTenant()).api;
  }, 60_000);
  afterAll(() => stack?.stop());

  const pending = async (tenantApi = api) =>
    (
      await tenantApi.post<{ id: string; embed_signup_url: string }>('/api/clients/', {
        display_name: 'Shop <b>&</b>',
        failure_redirect_url: 'https://t.test/f',
      })
    ).json;
  const open = async (url: string) => {
    const res = await fetch(url);
    return { res, html: await res.text() };
  };
  const pageConfig = (html: string) => JSON.parse(/<script type="application\/json" id="signup-config">(.*?)<\/script>/s.exec(html)![1]) as PageConfig;
  const post = (path: string, body: unknown, type = 'application/json') =>
    stack.api().request('POST', path, typeof body === 'string' ? body : JSON.stringify(body), { 'content-type': type });
  const onboard = () => new SimControl(stack.sim!.url).onboard({ withCatalog: true });
  const issues = (json: unknown) => (json as { detail: Issue[] }).detail.map((i) => `${i.loc.join('.')}:${i.type}`).sort();

  it('serves a pending client’s page without a bearer: escaped HTML, a nonce CSP, no caching, the SDK and a session state', async () => {
    const client = await pending();
    const { res, html } = await open(client.embed_signup_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1];
    expect(csp).toContain(`script-src 'nonce-${nonce}' ${stack.sim!.url}`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).toContain('Shop &#60;b&#62;&#38;&#60;/b&#62;');
    expect(html).not.toContain('<b>&</b>');
    expect(html).not.toContain('sim-app-secret');
    expect(pageConfig(html)).toMatchObject({
      client_id: client.id,
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      app_id: 'sim-app-id',
      config_id: 'sim-config-id',
      sdk_url: `${stack.sim!.url}/sdk.js`,
      provider_origins: [stack.sim!.url],
      complete_url: `/signup/${client.id}/complete`,
    });
    expect(pageConfig((await open(client.embed_signup_url)).html).state).not.toBe(pageConfig(html).state);
  });

  it('shows a not-found page for an unknown or malformed client id', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const { res, html } = await open(`${stack.baseUrl}/signup/${id}`);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(html).toContain('<h1 id="title">Signup link not found</h1>');
    }
  });

  it('shows that signup is already done on a completed client’s link, opening no session', async () => {
    const active = (
      await api.post<{ embed_signup_url: string }>('/api/clients/', {
        display_name: 'Live',
        business_account_id: '1',
        phone_number_id: '2',
        access_token: 'EAAlive',
        success_redirect_url: 'https://t.test/ok',
      })
    ).json;
    const { res, html } = await open(active.embed_signup_url);
    expect(res.status).toBe(200);
    expect(html).toContain('<h1 id="title">Signup already completed</h1>');
    expect(html).toContain('href="https://t.test/ok"');
    expect(html).not.toContain('signup-config');
  });

  it('validates the completion body with joi, listing every problem at once', async () => {
    const client = await pending();
    const path = `/signup/${client.id}/complete`;
    const empty = await post(path, {});
    expect(empty.status).toBe(422);
    expect(issues(empty.json)).toEqual(['body.business_account_id:missing', 'body.code:missing', 'body.phone_number_id:missing', 'body.state:missing']);

    const bad = await post(path, {
      state: 'short',
      code: 'x'.repeat(4097),
      business_account_id: 'waba-1',
      phone_number_id: 12,
      provider_business_id: '',
      extra: true,
    });
    expect(bad.status).toBe(422);
    expect(issues(bad.json)).toEqual([
      'body.business_account_id:string_pattern_mismatch',
      'body.code:too_long',
      'body.extra:extra_forbidden',
      'body.phone_number_id:string_type',
      'body.provider_business_id:string_too_short',
      'body.state:string_pattern_mismatch',
    ]);

    const badPath = await post('/signup/nope/complete', { state: 'x'.repeat(43), code: 'c', business_account_id: '1', phone_number_id: '2' });
    expect(badPath.status).toBe(422);
    expect(issues(badPath.json)).toEqual(['path.client_id:invalid_uuid']);

    expect((await post(path, 'state=x', 'application/x-www-form-urlencoded')).status).toBe(415);
    const malformed = await post(path, '{"state":', 'application/json');
    expect(malformed.status).toBe(422);
    expect(issues(malformed.json)).toEqual(['body:json_invalid']);
    expect((await post(path, null)).status).toBe(422);
  });

  const sessionCookie = (res: Response) => /^(gw_signup_state=[^;]+)/.exec(res.headers.get('set-cookie') ?? '')![1];

  it('validates the reported failure reason and answers with the failure redirect', async () => {
    const client = await pending();
    const page = await open(client.embed_signup_url);
    const { state } = pageConfig(page.html);
    const cookie = { cookie: sessionCookie(page.res) };
    const bad = await stack
      .api()
      .request('POST', `/signup/${client.id}/fail`, JSON.stringify({ state, reason: 'bored' }), { 'content-type': 'application/json', ...cookie });
    expect(bad.status).toBe(422);
    expect(issues(bad.json)).toEqual(['body.reason:enum']);
    const ok = await stack.api().request('POST', `/signup/${client.id}/fail`, JSON.stringify({ state, reason: 'phone_number_missing' }), {
      'content-type': 'application/json',
      ...cookie,
    });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({
      client_id: client.id,
      status: 'failed',
      reason: 'phone_number_missing',
      redirect_url: 'https://t.test/f?reason=phone_number_missing',
    });
  });

  it('lets only the page’s own session report a failure: the state token without its cookie, or with another browser’s, is a 403 and the client stays pending', async () => {
    const client = await pending();
    const first = await open(client.embed_signup_url);
    const { state } = pageConfig(first.html);
    // another browser opening the same link gets its own session and cookie
    const second = await open(client.embed_signup_url);
    expect(sessionCookie(second.res)).not.toBe(sessionCookie(first.res));
    const fail = (headers: Record<string, string>) =>
      stack
        .api()
        .request('POST', `/signup/${client.id}/fail`, JSON.stringify({ state, reason: 'provider_error' }), { 'content-type': 'application/json', ...headers });
    for (const headers of [{}, { cookie: sessionCookie(second.res) }, { cookie: 'gw_signup_state=' }] as Array<Record<string, string>>) {
      const refused = await fail(headers);
      expect([refused.status, (refused.json as { code: string }).code]).toEqual([403, 'signup_page_session_required']);
    }
    expect((await api.get<{ signup_status: string }>(`/api/clients/${client.id}`)).json.signup_status).toBe('pending');
    const own = await fail({ cookie: sessionCookie(first.res) });
    expect([own.status, (own.json as { status: string }).status]).toEqual([200, 'failed']);
    expect((await api.get<{ signup_status: string }>(`/api/clients/${client.id}`)).json.signup_status).toBe('failed');
  });

  it('rejects another tenant’s client id in the completion call (404) and completes the right one', async () => {
    const mine = await pending();
    const theirs = await pending((await stack.createTenant({ name: 'Other' })).api);
    const { state } = pageConfig((await open(mine.embed_signup_url)).html);
    const o = await onboard();
    const body = { state, code: o.code, business_account_id: o.waba_id, phone_number_id: o.phone_number_id, provider_business_id: o.business_id };
    const foreign = await post(`/signup/${theirs.id}/complete`, body);
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual({ detail: 'Unknown signup session for this client', code: 'signup_session_not_found' });
    const ok = await post(`/signup/${mine.id}/complete`, body);
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ client_id: mine.id, status: 'completed', reason: null, redirect_url: null });
    const again = await post(`/signup/${mine.id}/complete`, body);
    expect(again.json).toMatchObject({ status: 'completed' });
  });
});

describe('opening the hosted signup page costs little', () => {
  let stack: Stack;
  let api: ApiClient;
  beforeAll(async () => {
    // the proxy in front: 127.0.0.2 (the loopback network is all this host's, so a test connects from any of it)
    stack = await startStack({ services: ['tenant-directory', 'signup', 'edge'], env: { SIGNUP_PAGE_OPENS_PER_MINUTE: '8', TRUSTED_PROXIES: '127.0.0.2' } });
    api = (await stack.createTenant()).api;
  }, 60_000);
  afterAll(() => stack?.stop());

  /** Opens the page over a connection from `from`, with an X-Forwarded-For header when given. */
  const openFrom = (url: string, from: string, forwardedFor?: string) =>
    new Promise<number>((resolve, reject) => {
      const req = httpGet(url, { localAddress: from, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
    });

  it('believes X-Forwarded-For from no one but a trusted proxy: rotating it from another peer gets nothing past the limit', async () => {
    const client = (await api.post<{ id: string; embed_signup_url: string }>('/api/clients/', { display_name: 'Shop' })).json;
    const url = client.embed_signup_url;
    const untrusted: number[] = [];
    for (let i = 0; i < 20; i++) untrusted.push(await openFrom(url, '127.0.0.3', `198.51.100.${i}`));
    // the first 8 opens of 127.0.0.3 pass, every later one is refused whatever the header says
    expect(untrusted.slice(0, 8).every((s) => s === 200)).toBe(true);
    expect(untrusted.slice(8)).toEqual(new Array(12).fill(429));

    // through the trusted proxy each client counts on its own; what a client wrote in the header itself (the
    // entries left of the one the proxy added) is ignored
    const viaProxy: number[] = [];
    for (let i = 0; i < 9; i++) viaProxy.push(await openFrom(url, '127.0.0.2', `203.0.113.${i + 10}, 203.0.113.1`));
    expect(viaProxy).toEqual([...new Array(8).fill(200), 429]);
    expect(await openFrom(url, '127.0.0.2', '203.0.113.2')).toBe(200);
    expect(await openFrom(url, '127.0.0.2', '203.0.113.1')).toBe(429);
  });

  const stateOf = (html: string) => (JSON.parse(/<script type="application\/json" id="signup-config">(.*?)<\/script>/s.exec(html)![1]) as PageConfig).state;

  it('reuses the open session of the browser that holds its cookie, and limits page opens per address', async () => {
    const client = (await api.post<{ id: string; embed_signup_url: string }>('/api/clients/', { display_name: 'Shop' })).json;
    const first = await fetch(client.embed_signup_url);
    const cookie = first.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^gw_signup_state=[A-Za-z0-9_-]+; path=\/signup\/[0-9a-f-]+; expires=.*; samesite=strict; httponly$/i);
    const state = stateOf(await first.text());
    const again = await fetch(client.embed_signup_url, { headers: { cookie: cookie.split(';')[0] } });
    expect(stateOf(await again.text())).toBe(state);
    // a cookie of another session (or a forged one) is not reused: a new session
    const forged = await fetch(client.embed_signup_url, { headers: { cookie: 'gw_signup_state=forged' } });
    expect(stateOf(await forged.text())).not.toBe(state);

    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) statuses.push((await fetch(client.embed_signup_url)).status);
    const limited = await fetch(client.embed_signup_url);
    expect(statuses.filter((s) => s === 429)).not.toHaveLength(8);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('content-type')).toMatch(/^text\/html/);
  });
});
