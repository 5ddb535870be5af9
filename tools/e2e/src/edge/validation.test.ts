import { startStack, type Stack } from '@gateway/test-stack';

describe('validation and error forms at the edge', () => {
  let stack: Stack;
  let api: ReturnType<Stack['api']>;
  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'edge'], sim: false });
    api = (await stack.createTenant()).api;
  });
  afterAll(() => stack.stop());

  it('lists every problem of a request in one 422', async () => {
    const res = await api.post('/api/clients/', { display_name: 42, webhook_url: 'ftp://x', success_redirect_url: 'not a url', bogus: true });
    expect(res.status).toBe(422);
    const detail = (res.json as { detail: Array<Record<string, unknown>> }).detail;
    expect(detail.map((d) => d.loc)).toEqual([
      ['body', 'display_name'],
      ['body', 'webhook_url'],
      ['body', 'success_redirect_url'],
      ['body', 'bogus'],
    ]);
    for (const d of detail) {
      expect(Object.keys(d).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
      expect(typeof d.msg).toBe('string');
    }
    expect(detail.map((d) => d.type)).toEqual(['string_type', 'url_scheme', 'url_parsing', 'extra_forbidden']);
    expect(detail.map((d) => d.input)).toEqual([42, 'ftp://x', 'not a url', true]);
  });

  it('reports a missing required field, wrong types and path problems', async () => {
    const missing = await api.post('/api/clients/', {});
    expect(missing.status).toBe(422);
    expect((missing.json as { detail: Array<{ loc: string[]; type: string }> }).detail).toEqual([
      expect.objectContaining({ loc: ['body', 'display_name'], type: 'missing' }),
    ]);
    const partialAccount = await api.post('/api/clients/', { display_name: 'x', business_account_id: '1' });
    expect(partialAccount.status).toBe(422);
    const badPath = await api.get('/api/clients/not-a-uuid');
    expect(badPath.status).toBe(422);
    expect((badPath.json as { detail: Array<{ loc: string[]; type: string }> }).detail[0]).toMatchObject({ loc: ['path', 'id'], type: 'invalid_uuid' });
    const badQuery = await api.get('/api/clients?limit=500');
    expect((badQuery.json as { detail: Array<{ loc: string[] }> }).detail[0].loc).toEqual(['query', 'limit']);
    const badWebhook = await api.put('/api/tenants/webhook-url', { webhook_url: '/relative' });
    expect(badWebhook.status).toBe(422);
  });

  it('answers malformed JSON with 422 json_invalid and a non-JSON body with 415', async () => {
    const malformed = await api.request('POST', '/api/clients/', '{"display_name": ', { 'content-type': 'application/json' });
    expect(malformed.status).toBe(422);
    expect((malformed.json as { detail: Array<{ type: string; loc: string[] }> }).detail[0]).toMatchObject({ type: 'json_invalid', loc: ['body'] });
    const form = await api.request('POST', '/api/clients/', 'display_name=x', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(form.json).toEqual({ detail: 'Request body must be application/json', code: 'unsupported_media_type' });
  });

  it('refuses bodies over 1 MiB with 413 and unknown routes with a JSON 404', async () => {
    const big = await api.post('/api/clients/', { display_name: 'x', external_id: 'y'.repeat(1024 * 1024 + 10) });
    expect(big.status).toBe(413);
    expect((big.json as { code: string }).code).toBe('body_too_large');
    const nowhere = await api.get('/api/nowhere');
    expect(nowhere.status).toBe(404);
    expect(nowhere.json).toEqual({ detail: 'Not Found', code: 'route_not_found' });
  });

  it('echoes or mints a request id', async () => {
    const res = await api.get('/api/clients', { 'x-request-id': 'trace-abc-1' });
    expect(res.headers.get('x-request-id')).toBe('trace-abc-1');
    const minted = await api.get('/api/clients');
    expect(minted.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers /healthz while alive and /readyz with the state of every dependency', async () => {
    const health = await stack.api().get('/healthz');
    expect(health.status).toBe(200);
    const ready = await stack.api().get('/readyz');
    // only tenant-directory runs in this stack, so the gateway is not ready and says which parts are missing
    expect(ready.status).toBe(503);
    expect((ready.json as { checks: Record<string, string> }).checks).toMatchObject({ 'tenant-directory': 'ok', bus: 'ok', dispatcher: 'unreachable' });
  });
});
