import { createHmac } from 'node:crypto';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies checked by the OpenAPI check

/**
 * Goes through the operations other tests reach only with plain fetch or a browser, through the tests' API client:
 * each answer is checked against the OpenAPI document (status, body, headers), and the suite-wide coverage check
 * (scripts/test-summary.mjs) sees every operation of the document checked at least once.
 */
describe('every operation answers as the OpenAPI document says', () => {
  let stack: Stack;
  let api: ApiClient;
  let apiKey: string;
  let receiver: WebhookReceiver;
  let sim: SimControl;
  let clientId: string;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'flows', 'signup', 'dispatcher', 'edge'] });
    sim = new SimControl(stack.sim!.url);
    receiver = await startWebhookReceiver();
    ({ api, apiKey } = await stack.createTenant());
    const phone = await sim.phoneNumber();
    const c = await api.post<Obj>('/api/clients', {
      display_name: 'Tour',
      webhook_url: receiver.url,
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    expect(c.status).toBe(200);
    clientId = c.json.id;
  }, 180_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });

  it('health, the tenant record, its secret and keys', async () => {
    const pub = stack.api();
    expect((await pub.get<Obj>('/healthz')).json).toEqual({ status: 'ok' });
    expect((await pub.get<Obj>('/readyz')).json.status).toBe('ready');
    expect((await api.get<Obj>('/api/tenants/me')).json.name).toBe('Acme');
    const rotated = await api.post<Obj>('/api/tenants/webhook-secret/rotate');
    expect(rotated.json.webhook_secret).toMatch(/^whsec_/);
    const key = await api.post<Obj>('/api/api-keys');
    expect(key.status).toBe(201);
    expect(key.json.api_key).toMatch(/^gw_/);
  });

  it('deliveries: a test event, its record, a retry and a replay', async () => {
    const test = await api.post<Obj>(`/api/clients/${clientId}/webhook/test`);
    expect(test.status).toBe(202);
    await waitFor(async () => (await api.get<Obj>(`/api/clients/${clientId}/webhook/deliveries/${test.json.delivery_id}`)).json.status === 'succeeded', {
      what: 'the test delivery',
    });
    const one = await api.get<Obj>(`/api/clients/${clientId}/webhook/deliveries/${test.json.delivery_id}`);
    expect(JSON.parse(one.json.body)).toMatchObject({ type: 'test', client_id: clientId });
    expect((await api.post<Obj>(`/api/clients/${clientId}/webhook/deliveries/${test.json.delivery_id}/retry`)).status).toBe(202);
    const replay = await api.post<Obj>(`/api/clients/${clientId}/webhook/deliveries/replay`, { since: new Date(Date.now() - 3600_000).toISOString() });
    expect(replay.status).toBe(202);
    expect(replay.json).toEqual({ replayed: 0, has_more: false });
  });

  it('templates: create, list, read, sync, delete', async () => {
    const created = await api.post<Obj>('/api/templates', {
      client_id: clientId,
      name: 'tour_update',
      language: 'en_US',
      category: 'UTILITY',
      components: [{ type: 'BODY', text: 'Hi {{1}}', example: { body_text: [['Ann']] } }],
    });
    expect(created.status).toBe(200);
    expect((await api.get<Obj>(`/api/templates?client_id=${clientId}`)).json.data.map((t: Obj) => t.name)).toContain('tour_update');
    expect((await api.get<Obj>(`/api/templates/${created.json.id}?client_id=${clientId}`)).json.name).toBe('tour_update');
    expect((await api.post<Obj>('/api/templates/sync', { client_id: clientId })).status).toBe(200);
    const deleted = await api.delete(`/api/templates?client_id=${clientId}&name=tour_update`);
    expect(deleted.status).toBe(200);
  });

  it("the provider's webhook: handshake and a signed body", async () => {
    const pub = stack.api();
    const ok = await pub.get('/webhooks/provider?hub.mode=subscribe&hub.verify_token=sim-verify-token&hub.challenge=1158201444');
    expect(ok.status).toBe(200);
    expect(ok.text).toBe('1158201444');
    expect((await pub.get('/webhooks/provider?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1')).status).toBe(403);
    const body = JSON.stringify({ object: 'whatsapp_business_account', entry: [] });
    const signature = `sha256=${createHmac('sha256', 'sim-app-secret').update(body).digest('hex')}`;
    expect((await pub.post('/webhooks/provider', body, { 'x-hub-signature-256': signature })).status).toBe(200);
    expect((await pub.post('/webhooks/provider', body, { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` })).status).toBe(401);
  });

  it('the hosted signup page and its calls', async () => {
    const pending = await api.post<Obj>('/api/clients', { display_name: 'Pending' });
    const pub = stack.api();
    const path = new URL(pending.json.embed_signup_url).pathname;
    const page = await pub.get(path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const state = 'A'.repeat(43);
    const complete = await pub.post(`${path}/complete`, { state, code: 'c', business_account_id: '1', phone_number_id: '2' });
    expect([404, 409]).toContain(complete.status);
    const fail = await pub.post(`${path}/fail`, { state, reason: 'provider_error' });
    // without the page's session cookie
    expect(fail.status).toBe(403);
  });

  it('the dashboard: its pages and the session (sign in, who, sign out)', async () => {
    const pub = stack.api();
    const redirect = await pub.get('/dashboard');
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('/dashboard/');
    expect([200, 503]).toContain((await pub.get('/dashboard/clients')).status);
    expect((await pub.get('/dashboard/assets/missing.js')).status).toBe(404);
    const signIn = await pub.post<Obj>('/dashboard/session', { api_key: apiKey });
    expect(signIn.status).toBe(201);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    const who = await pub.get<Obj>('/dashboard/session', { cookie });
    expect(who.json.csrf_token).toBe(signIn.json.csrf_token);
    expect((await pub.delete('/dashboard/session', { cookie, 'x-csrf-token': signIn.json.csrf_token })).status).toBe(204);
    expect((await pub.get('/dashboard/session', { cookie })).status).toBe(401);
  });

  it('the operator: dead letters', async () => {
    const admin = stack.admin();
    expect((await admin.get<Obj>('/admin/dead-letters')).json.data).toEqual([]);
    const replay = await admin.post<Obj>('/admin/dead-letters/replay', { seqs: [999_999] });
    expect(replay.status).toBe(200);
    expect(replay.json.replayed).toBe(0);
  });
});
