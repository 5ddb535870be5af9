import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closedAddress, listenLocal } from '@gateway/testing';
import { ProviderClient } from './client';
import { operationName } from './http';

type Call = { operation: string; outcome: string; errorCode: string; durationMs: number };

describe('provider call observer', () => {
  let server: Server;
  let answer: (req: IncomingMessage, res: ServerResponse) => void;
  let requests = 0;
  let port: number;
  const calls: Call[] = [];
  let client: ProviderClient;

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests++;
        answer(req, res);
      });
    });
    await listenLocal(server);
    port = (server.address() as AddressInfo).port;
    // a deadline a loaded CI machine always meets; the test of timeouts uses its own short one
    client = new ProviderClient({ baseUrl: `http://127.0.0.1:${port}`, apiVersion: 'v21.0', timeoutMs: 5000, observer: (c) => calls.push(c) });
  });
  afterAll(async () => {
    await client.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    calls.length = 0;
    requests = 0;
  });

  const json = (status: number, body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  it('reports a successful call once, as ok with no error code', async () => {
    answer = json(200, { messages: [{ id: 'wamid.1' }] });
    await client.sendMessage('tok', '1234567890', { to: '1' });
    expect(calls).toEqual([{ operation: 'POST /{id}/messages', outcome: 'ok', errorCode: '', durationMs: expect.any(Number) }]);
    expect(calls[0].durationMs).toBeGreaterThanOrEqual(0);
  });

  it("reports a rejected call with the provider's error code", async () => {
    answer = json(400, { error: { message: 'Message undeliverable', type: 'OAuthException', code: 131026, fbtrace_id: 'x' } });
    await expect(client.sendMessage('tok', '1234567890', { to: '1' })).rejects.toMatchObject({ kind: 'validation', code: 'recipient_undeliverable' });
    expect(calls).toEqual([{ operation: 'POST /{id}/messages', outcome: 'validation', errorCode: '131026', durationMs: expect.any(Number) }]);
  });

  it('reports a retried idempotent call once, with its final outcome', async () => {
    answer = json(500, { error: { message: 'Temporary', code: 2 } });
    await expect(client.markRead('tok', '1234567890', 'wamid.1')).rejects.toMatchObject({ kind: 'unavailable' });
    expect(requests).toBe(3);
    expect(calls).toEqual([{ operation: 'POST /{id}/messages', outcome: 'unavailable', errorCode: '2', durationMs: expect.any(Number) }]);
  });

  it('reports timeouts and unreachable providers with our own codes', async () => {
    answer = () => undefined; // never answers
    const shortDeadline = new ProviderClient({ baseUrl: `http://127.0.0.1:${port}`, apiVersion: 'v21.0', timeoutMs: 300, observer: (c) => calls.push(c) });
    await expect(shortDeadline.callAction('tok', '1234567890', { action: 'accept' })).rejects.toMatchObject({ kind: 'timeout' });
    await shortDeadline.close();
    const refused = new ProviderClient({ baseUrl: `http://${await closedAddress()}`, apiVersion: 'v21.0', timeoutMs: 300, observer: (c) => calls.push(c) });
    await expect(refused.listCatalogs('tok', '987654321')).rejects.toMatchObject({ kind: 'unavailable' });
    await refused.close();
    expect(calls.map(({ operation, outcome, errorCode }) => ({ operation, outcome, errorCode }))).toEqual([
      { operation: 'POST /{id}/calls', outcome: 'timeout', errorCode: 'provider_outcome_unknown' },
      { operation: 'GET /{id}/product_catalogs', outcome: 'unavailable', errorCode: 'provider_unavailable' },
    ]);
  });

  it('keeps a throwing observer from failing the call', async () => {
    const throwing = new ProviderClient({
      baseUrl: `http://127.0.0.1:${port}`,
      apiVersion: 'v21.0',
      timeoutMs: 5000,
      observer: () => {
        throw new Error('metrics broke');
      },
    });
    answer = json(200, { messages: [{ id: 'wamid.2' }] });
    await expect(throwing.sendMessage('tok', '1234567890', { to: '1' })).resolves.toMatchObject({ messageId: 'wamid.2' });
    await throwing.close();
  });

  it('names operations by method and path with ids folded, so label values stay few', () => {
    expect(operationName({ method: 'GET', path: 'oauth/access_token' })).toBe('GET /oauth/access_token');
    expect(operationName({ method: 'DELETE', path: '1234/block_users' })).toBe('DELETE /{id}/block_users');
    expect(operationName({ method: 'GET', path: '/55512' })).toBe('GET /{id}');
    expect(operationName({ method: 'POST', path: 'flow-9Ab/publish' })).toBe('POST /{id}/publish');
  });
});
