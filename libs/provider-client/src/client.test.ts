import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AppError } from '@gateway/errors';
import { closedAddress, listenLocal } from '@gateway/testing';
import { ProviderClient } from './client';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

describe('ProviderClient over real HTTP', () => {
  let server: Server;
  let handler: Handler;
  const seen: Array<{ method: string; url: string; body: string; auth?: string; type?: string }> = [];
  let client: ProviderClient;
  // answered calls get a deadline a loaded CI machine always meets; the unanswered ones use a short one
  let shortDeadline: ProviderClient;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, body, auth: req.headers.authorization, type: req.headers['content-type'] });
        handler(req, body, res);
      });
    });
    await listenLocal(server);
    const port = (server.address() as AddressInfo).port;
    client = new ProviderClient({ baseUrl: `http://127.0.0.1:${port}`, apiVersion: 'v21.0', timeoutMs: 5000, appId: 'app', appSecret: 'secret' });
    shortDeadline = new ProviderClient({ baseUrl: `http://127.0.0.1:${port}`, apiVersion: 'v21.0', timeoutMs: 300, appId: 'app', appSecret: 'secret' });
  });
  afterAll(async () => {
    await client.close();
    await shortDeadline.close();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    seen.length = 0;
  });

  const reply = (status: number, json: unknown) => (_req: IncomingMessage, _b: string, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(json));
  };

  it('sends a message with the token and returns the provider message id', async () => {
    handler = reply(200, { messaging_product: 'whatsapp', contacts: [{ input: '+1555', wa_id: '1555' }], messages: [{ id: 'wamid.X' }] });
    const res = await client.sendMessage('tok', '123', { messaging_product: 'whatsapp', to: '+1555', type: 'text', text: { body: 'hi' } });
    expect(res).toEqual({ messageId: 'wamid.X', waId: '1555' });
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v21.0/123/messages', auth: 'Bearer tok', type: 'application/json' });
  });

  it('retries a transient error answer (the provider did not act), a send included, a bounded number of times', async () => {
    handler = reply(500, { error: { message: 'Something went wrong', type: 'OAuthException', code: 131000 } });
    await expect(client.sendMessage('tok', '123', {})).rejects.toMatchObject({ kind: 'provider_rejected', code: 'provider_internal_error' });
    expect(seen).toHaveLength(3);
    seen.length = 0;
    await expect(client.markRead('tok', '123', 'wamid.in')).rejects.toBeInstanceOf(AppError);
    expect(seen).toHaveLength(3);
    expect(JSON.parse(seen[0].body)).toEqual({ messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.in' });
    seen.length = 0;
    handler = reply(400, { error: { message: '(#131047) Re-engagement message', type: 'OAuthException', code: 131047 } });
    await expect(client.sendMessage('tok', '123', {})).rejects.toMatchObject({ kind: 'conflict', code: 'customer_service_window_closed' });
    expect(seen).toHaveLength(1);
  });

  it('never repeats a send that timed out: its outcome is unknown (504 provider_outcome_unknown), never hangs', async () => {
    // never answers: without the deadline the call would never settle (the test's own timeout would fail it)
    handler = () => undefined;
    await expect(shortDeadline.sendMessage('tok', '123', {})).rejects.toMatchObject({
      kind: 'timeout',
      code: 'provider_outcome_unknown',
      details: { outcome: 'unknown' },
    });
    expect(seen).toHaveLength(1);
  });

  it('backs the pair rate limit off 4^n seconds per recipient, and a success resets it', async () => {
    handler = reply(400, { error: { message: '(#131056) pair rate limit hit', type: 'OAuthException', code: 131056 } });
    const after = async (to: string) => (await client.sendMessage('tok', '123', { to }).catch((e: AppError) => e)) as AppError;
    expect([
      (await after('+1')).retryAfterSeconds,
      (await after('+1')).retryAfterSeconds,
      (await after('1')).retryAfterSeconds,
      (await after('+2')).retryAfterSeconds,
    ]).toEqual([1, 4, 16, 1]);
    handler = reply(200, { messages: [{ id: 'wamid.ok' }] });
    await client.sendMessage('tok', '123', { to: '+1' });
    handler = reply(400, { error: { message: '(#131056) pair rate limit hit', type: 'OAuthException', code: 131056 } });
    expect((await after('+1')).retryAfterSeconds).toBe(1);
  });

  it('reports an unreachable provider as unavailable', async () => {
    const dead = new ProviderClient({ baseUrl: `http://${await closedAddress()}`, apiVersion: 'v21.0', timeoutMs: 500 });
    await expect(dead.sendMessage('tok', '1', {})).rejects.toMatchObject({ kind: 'unavailable', code: 'provider_unavailable' });
    await dead.close();
  });

  it('surfaces partial block failures as data', async () => {
    handler = reply(200, {
      messaging_product: 'whatsapp',
      block_users: { added_users: [{ input: '+1', wa_id: '1' }], failed_users: [{ input: '+2', errors: [{ code: 131047, message: 'Re-engagement' }] }] },
      errors: { message: '(#139100) Failed to block/unblock some users', type: 'OAuthException', code: 139100 },
    });
    const res = await client.blockUsers('tok', '123', ['+1', '+2'], true);
    expect(res).toEqual({ done: [{ input: '+1', wa_id: '1' }], failed: [{ input: '+2', errors: [{ code: 131047, message: 'Re-engagement' }] }] });
    expect(JSON.parse(seen[0].body)).toEqual({ messaging_product: 'whatsapp', block_users: [{ user: '+1' }, { user: '+2' }] });
  });

  it('uploads flow JSON as multipart/form-data with asset_type FLOW_JSON', async () => {
    handler = reply(200, { success: true, validation_errors: [{ error: 'INVALID_PROPERTY_VALUE', line_start: 1 }] });
    const errors = await client.uploadFlowJson('tok', 'flow-1', '{"version":"6.0"}');
    expect(errors).toEqual([{ error: 'INVALID_PROPERTY_VALUE', line_start: 1 }]);
    expect(seen[0].type).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0].body).toContain('name="asset_type"\r\n\r\nFLOW_JSON');
    expect(seen[0].body).toContain('filename="flow.json"');
    expect(seen[0].body).toContain('{"version":"6.0"}');
  });

  it('exchanges a signup code with the app credentials', async () => {
    handler = reply(200, { access_token: 'EAAB', token_type: 'bearer' });
    expect(await client.exchangeCode('c0de')).toEqual({ accessToken: 'EAAB' });
    expect(seen[0].url).toBe('/v21.0/oauth/access_token?client_id=app&client_secret=secret&code=c0de');
  });

  it('registers the phone with the PIN, subscribes the app with an empty body, and refuses success: false', async () => {
    handler = reply(200, { success: true });
    await client.registerPhone('tok', '123', '004321');
    await client.subscribeApp('tok', '456');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v21.0/123/register', auth: 'Bearer tok' });
    expect(JSON.parse(seen[0].body)).toEqual({ messaging_product: 'whatsapp', pin: '004321' });
    expect(seen[1]).toMatchObject({ method: 'POST', url: '/v21.0/456/subscribed_apps', body: '' });
    handler = reply(200, { success: false });
    await expect(client.registerPhone('tok', '123', '004321')).rejects.toMatchObject({ kind: 'provider_rejected' });
    await expect(client.subscribeApp('tok', '456')).rejects.toMatchObject({ kind: 'provider_rejected' });
  });

  it('retries a registration the provider cannot take right now (133004) with its longer backoff, then succeeds', async () => {
    let refusals = 2;
    const refused = reply(503, { error: { message: '(#133004) Server Temporarily Unavailable', type: 'OAuthException', code: 133004 } });
    handler = (req, body, res) => (refusals-- > 0 ? refused(req, body, res) : reply(200, { success: true })(req, body, res));
    await client.registerPhone('tok', '123', '004321');
    expect(seen.map((s) => s.url)).toEqual(['/v21.0/123/register', '/v21.0/123/register', '/v21.0/123/register']);
    // a refusal that outlasts the retries is a retryable 503, never a signup failure for good
    seen.length = 0;
    handler = refused;
    const e = await client.registerPhone('tok', '123', '004321').catch((x: AppError) => x);
    expect(e).toMatchObject({ kind: 'unavailable', code: 'registration_temporarily_unavailable', details: { retryable: true } });
    expect(seen).toHaveLength(4);
  });

  it('lists the catalogs linked to a business account', async () => {
    handler = reply(200, { data: [{ id: '777', name: 'Shop' }] });
    expect(await client.listCatalogs('tok', '456')).toEqual([{ id: '777', name: 'Shop' }]);
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/v21.0/456/product_catalogs' });
  });
});
