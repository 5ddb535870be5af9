import { randomUUID } from 'node:crypto';
import { SECRET_FIELDS } from '@gateway/logger';
import { ApiClient, startStack, type Stack } from '@gateway/test-stack';
import { routeBodies, type RouteBody } from './testing/route-bodies';

interface Issue {
  loc: string[];
  msg: string;
  type: string;
  input: unknown;
  ctx: Record<string, unknown>;
}

const deep = (depth: number, leaf: unknown = 1): string => '{"a":'.repeat(depth) + JSON.stringify(leaf) + '}'.repeat(depth);

describe('hostile input is refused at the edge with a 4xx, before any service is called', () => {
  let stack: Stack;
  let api: ApiClient;
  let admin: ApiClient;
  const clientId = randomUUID();
  const flow = '1234567890123456';

  beforeAll(async () => {
    // no flows or messaging service: a request that passes validation answers 503, so a 422 proves nothing was called
    // production mode: no private webhook targets, no plain-http redirects
    stack = await startStack({
      services: ['tenant-directory', 'edge'],
      sim: false,
      env: { FLOWS_ADDR: '127.0.0.1:1', MESSAGING_ADDR: '127.0.0.1:1', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' },
    });
    ({ api } = await stack.createTenant());
    admin = new ApiClient(stack.api().baseUrl, stack.adminToken);
  });
  afterAll(() => stack.stop());

  async function issues(res: Promise<{ status: number; json: unknown; text: string }>): Promise<Issue[]> {
    const r = await res;
    expect(r.status).toBe(422);
    return (r.json as { detail: Issue[] }).detail;
  }

  it('refuses a NUL or a lone surrogate in any string of a body, naming where it is', async () => {
    const nul = await issues(api.put(`/api/flows/${flow}/json`, { client_id: clientId, flow_json: { version: '7.0', screens: [{ id: 'A', x: 'a\u0000' }] } }));
    expect(nul).toEqual([expect.objectContaining({ loc: ['body', 'flow_json', 'screens', '0', 'x'], type: 'string_unstorable' })]);
    expect((await issues(api.post('/api/clients/', { display_name: 'shop\u0000' })))[0].loc).toEqual(['body', 'display_name']);
    expect((await issues(api.post('/api/clients/', { display_name: 'shop', external_id: '\u0000' })))[0].loc).toEqual(['body', 'external_id']);
    // a key is text too
    expect((await issues(api.post('/api/clients/', { display_name: 'shop', ['k\u0000']: 1 })))[0].type).toBe('string_unstorable');
    const surrogate = await issues(api.request('POST', '/api/clients/', '{"display_name":"x\\ud800y"}', { 'content-type': 'application/json' }));
    expect(surrogate[0]).toMatchObject({ loc: ['body', 'display_name'], type: 'string_unstorable' });
    expect((await issues(admin.post('/admin/tenants', { name: 'evil\u0000', email: 'a@b.test' })))[0].loc).toEqual(['body', 'name']);
  });

  it('refuses a NUL in a path or query parameter', async () => {
    expect((await issues(api.get(`/api/messages/%00?client_id=${clientId}`)))[0]).toMatchObject({ loc: ['path'], type: 'string_unstorable' });
    expect((await issues(api.get('/api/clients?cursor=%00')))[0]).toMatchObject({ loc: ['query', 'cursor'], type: 'string_unstorable' });
    expect((await issues(api.get(`/api/flows?client_id=${clientId}&x=a%00`)))[0]).toMatchObject({ loc: ['query', 'x'], type: 'string_unstorable' });
  });

  it('refuses JSON nested deeper than 64 levels before parsing it, with a short answer', async () => {
    for (const body of [
      `{"client_id":"${clientId}","flow_json":${deep(10_000)}}`,
      `{"display_name":"x","unknown":${'['.repeat(60_000)}${']'.repeat(60_000)}}`,
    ]) {
      const res = await api.request('PUT', `/api/flows/${flow}/json`, body, { 'content-type': 'application/json' });
      expect(res.status).toBe(422);
      expect((res.json as { detail: Issue[] }).detail[0]).toMatchObject({ loc: ['body'], type: 'json_too_deep', ctx: { max_depth: 64 } });
      expect(res.text.length).toBeLessThan(1000);
    }
    // 64 levels are fine (this one reaches the missing flows service)
    const ok = await api.request('PUT', `/api/flows/${flow}/json`, `{"client_id":"${clientId}","flow_json":${deep(62)}}`, {
      'content-type': 'application/json',
    });
    expect(ok.status).toBe(503);
  });

  it('echoes only a short, flat preview of an offending value', async () => {
    const nested = await issues(api.post('/api/clients/', { display_name: { a: { b: { c: 'x'.repeat(5000) } } } }));
    expect(nested[0].loc).toEqual(['body', 'display_name']);
    expect(JSON.stringify(nested[0].input).length).toBeLessThanOrEqual(300);
    expect(typeof nested[0].input).toBe('string');
    const long = await issues(api.post('/api/clients/', { display_name: 'y'.repeat(100_000) }));
    expect(JSON.stringify(long).length).toBeLessThan(2000);
  });

  it('never echoes a secret in an error, wherever the problem is', async () => {
    const token = 'EAAGsecretTOKENvalue1234567890';
    const cases = [
      api.post('/api/clients/', { display_name: 42, access_token: token }),
      api.post('/api/clients/', { display_name: 'x', business_account_id: '1', access_token: token }),
      api.post('/api/clients/', { display_name: 'x', phone_number_id: '1', access_token: token }),
      api.post('/api/clients/', { display_name: 'x', access_token: [token] }),
      api.request('POST', '/api/clients/', `{"display_name":"x","access_token":"${token}",`, { 'content-type': 'application/json' }),
    ];
    for (const res of await Promise.all(cases)) {
      expect(res.status).toBe(422);
      expect(res.text).not.toContain(token);
      expect(res.text).not.toContain('secretTOKEN');
    }
  });

  it('never echoes an SDP (its ICE credentials) in a 422 of the call routes that take one', async () => {
    const sdp = 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\na=ice-ufrag:UFRAGsecret\r\na=ice-pwd:PWDsecretICEpassword\r\n';
    const cases = ['/api/call/accept', '/api/call/pre-accept'].flatMap((path) => [
      // too long, a wrong type, and a valid SDP beside another field's problem
      api.post(path, { client_id: clientId, call_id: 'wacid.1', sdp: sdp + 'a'.repeat(256 * 1024) }),
      api.post(path, { client_id: clientId, call_id: 'wacid.1', sdp: [sdp] }),
      api.post(path, { client_id: clientId, call_id: { sdp }, sdp }),
    ]);
    cases.push(
      api.post('/api/call/connect', { client_id: clientId, to: '+16505551234', sdp: sdp + 'a'.repeat(256 * 1024) }),
      api.post('/api/call/connect', { client_id: clientId, to: 'not a number', sdp }),
    );
    for (const res of await Promise.all(cases)) {
      expect(res.status).toBe(422);
      expect(res.text).not.toContain('PWDsecret');
      expect(res.text).not.toContain('UFRAGsecret');
    }
  });

  it('never echoes the value of any field the logs redact (one list: SECRET_FIELDS)', async () => {
    for (const name of SECRET_FIELDS.flatMap((n) => [n, n.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())])) {
      const value = `SECRETvalueOF-${name}`;
      const answers = await Promise.all([
        // an unknown field: its own issue
        api.post('/api/clients/', { display_name: 'x', [name]: value }),
        // inside another field's offending value
        api.post('/api/clients/', { display_name: { [name]: value } }),
      ]);
      for (const res of answers) expect([name, res.status, res.text.includes(value)]).toEqual([name, 422, false]);
    }
  });

  it('accepts signup redirect URLs only over https outside development mode', async () => {
    const plain = await issues(
      api.post('/api/clients/', { display_name: 'x', success_redirect_url: 'http://shop.test/ok', failure_redirect_url: 'http://shop.test/ko' }),
    );
    expect(plain.map((d) => [d.loc.join('.'), d.type])).toEqual([
      ['body.success_redirect_url', 'url_scheme'],
      ['body.failure_redirect_url', 'url_scheme'],
    ]);
    const secure = await api.post('/api/clients/', {
      display_name: 'x',
      success_redirect_url: 'https://shop.test/ok',
      failure_redirect_url: 'https://shop.test/ko',
    });
    expect(secure.status).toBe(200);
  });

  it('answers 100,000 invalid array items with a short 422 listing at most 100 problems (issue 23: a 26 MB answer)', async () => {
    const client = (await api.post<{ id: string }>('/api/clients/', { display_name: 'x' })).json.id;
    const body = JSON.stringify({ webhook_events: new Array(100_000).fill('a') });
    const res = await api.request('PATCH', `/api/clients/${client}`, body, { 'content-type': 'application/json' });
    expect(res.status).toBe(422);
    const answer = res.json as { detail: Issue[] };
    expect(answer.detail.length).toBeLessThanOrEqual(100);
    expect(answer.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'webhook_events'], type: 'too_many_items' }));
    expect(res.text.length).toBeLessThan(16 * 1024);
  });

  describe('every operation with a JSON body', () => {
    let operations: RouteBody[];
    beforeAll(() => {
      operations = routeBodies();
    });

    const PARAMS: Record<string, string> = {
      flow_id: '1234567890',
      template_id: '1234567890',
      media_id: '1234567890',
      message_id: 'wamid.X',
      prefix: 'gw_abcdefgh',
    };
    const send = (op: { method: string; path: string }, body: string) => {
      const path = op.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => PARAMS[name] ?? randomUUID());
      const who = path.startsWith('/admin') ? admin : path.startsWith('/api') ? api : stack.api();
      return who.request(op.method, path, body, { 'content-type': 'application/json' });
    };
    const isPublic = (op: { path: string }) => !op.path.startsWith('/api') && !op.path.startsWith('/admin');
    const bounded = (what: string, res: { status: number; text: string; json: unknown }) => {
      const answer = res.json as { detail?: unknown[]; more_issues?: number };
      expect([what, res.status, Array.isArray(answer?.detail) && answer.detail.length <= 100, res.text.length < 64 * 1024]).toEqual([what, 422, true, true]);
      return answer as { detail: Issue[]; more_issues?: number };
    };

    it('answers 120,000 items in any array field with a bounded 422, never a 500 (issue 23: a stack overflow on 11 operations)', async () => {
      expect(operations.length).toBeGreaterThan(30);
      let sent = 0;
      for (const op of operations)
        for (const key of op.arrayKeys) {
          bounded(`${op.method} ${op.path} ${key}`, await send(op, JSON.stringify({ [key]: new Array(isPublic(op) ? 3000 : 120_000).fill('a') })));
          sent++;
        }
      expect(sent).toBeGreaterThanOrEqual(11);
    });

    it('answers unknown keys with a bounded 422 that counts every problem, and 50,000 keys before parsing them (issue 23: 5.8 MB answers on 31 operations)', async () => {
      const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;
      for (const op of operations) {
        // the public pages' calls take small bodies (4 and 16 KiB): as many keys as fit
        const n = isPublic(op) ? 300 : 1000;
        const answer = bounded(`${op.method} ${op.path}`, await send(op, keys(n)));
        expect([op.path, answer.detail.length, answer.detail.length + (answer.more_issues ?? 0) >= n]).toEqual([op.path, 100, true]);
        if (isPublic(op)) continue;
        const many = bounded(`${op.method} ${op.path}`, await send(op, keys(50_000)));
        expect([op.path, many.detail]).toEqual([
          op.path,
          [expect.objectContaining({ loc: ['body'], type: 'too_many_properties', ctx: { max_properties: 1000 } })],
        ]);
      }
    });
  });

  it('answers an unknown method with 405 and Allow on a known path, 404 elsewhere, in the error form', async () => {
    for (const method of ['PROPFIND', 'PURGE', 'LINK', 'SEARCH', 'MKCOL']) {
      const known = await api.request(method, '/api/clients');
      expect(known.status).toBe(405);
      expect(known.headers.get('allow')).toMatch(/GET/);
      expect(known.json).toEqual({ detail: expect.any(String), code: 'method_not_allowed' });
      const unknown = await api.request(method, '/api/nowhere');
      expect(unknown.status).toBe(404);
      expect(unknown.json).toEqual({ detail: 'Not Found', code: 'route_not_found' });
      const adminKnown = await admin.request(method, '/admin/tenants');
      expect(adminKnown.status).toBe(405);
      expect(adminKnown.headers.get('allow')).toMatch(/POST/);
    }
    const put = await api.request('PUT', '/api/clients');
    expect(put.status).toBe(405);
    expect(put.json).toEqual({ detail: expect.any(String), code: 'method_not_allowed' });
  });
});
