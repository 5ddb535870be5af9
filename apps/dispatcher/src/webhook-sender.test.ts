import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenLocal } from '@gateway/testing';
import { WebhookSender } from './webhook-sender';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

/** A receiver on a free port of the loopback; each test says how it answers. */
async function receiver(handle: Handler): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  await listenLocal(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks?tenant=t1`, server };
}

describe('WebhookSender', () => {
  const servers: Server[] = [];
  let sender: WebhookSender;
  beforeEach(() => {
    // a deadline no loaded machine reaches for an answering receiver; the timeout test has one of its own
    sender = new WebhookSender({ timeoutMs: 15_000, allowPrivateTargets: true });
  });
  afterEach(async () => {
    await sender.close();
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });
  const start = async (handle: Handler) => {
    const r = await receiver(handle);
    servers.push(r.server);
    return r.url;
  };

  it('POSTs the body with its headers, the JSON type and the user agent, to the path and query of the URL', async () => {
    let seen: { method?: string; url?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    const url = await start((req, body, res) => {
      seen = { method: req.method, url: req.url, headers: req.headers, body };
      res.writeHead(204).end();
    });
    const result = await sender.send(url, '{"a":1}', { 'webhook-id': 'evt_1', 'X-Event-Type': 'chat' });
    expect(result).toMatchObject({ ok: true, responseCode: 204, error: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(seen.method).toBe('POST');
    expect(seen.url).toBe('/hooks?tenant=t1');
    expect(seen.body).toBe('{"a":1}');
    expect(seen.headers).toMatchObject({
      'webhook-id': 'evt_1',
      'x-event-type': 'chat',
      'content-type': 'application/json',
      'user-agent': 'messaging-gateway-webhooks/1',
    });
  });

  it('reports a non-2xx answer as a failed attempt, a 3xx included (redirects are not followed)', async () => {
    let hits = 0;
    const url = await start((req, _b, res) => {
      hits += 1;
      if (req.url?.startsWith('/elsewhere')) res.writeHead(200).end();
      else res.writeHead(302, { location: '/elsewhere' }).end();
    });
    expect(await sender.send(url, '{}', {})).toMatchObject({ ok: false, responseCode: 302, error: 'receiver answered 302' });
    expect(hits).toBe(1);
    const failing = await start((_r, _b, res) => res.writeHead(500).end('boom'));
    expect(await sender.send(failing, '{}', {})).toMatchObject({ ok: false, responseCode: 500, error: 'receiver answered 500' });
  });

  it("reads a 429's or 503's Retry-After, and no other answer's", async () => {
    const statuses = [429, 503, 500];
    const url = await start((_r, _b, res) => res.writeHead(statuses.shift()!, { 'retry-after': '7' }).end());
    expect(await sender.send(url, '{}', {})).toMatchObject({ responseCode: 429, retryAfterMs: 7000 });
    expect(await sender.send(url, '{}', {})).toMatchObject({ responseCode: 503, retryAfterMs: 7000 });
    const other = await sender.send(url, '{}', {});
    expect(other.responseCode).toBe(500);
    expect(other).not.toHaveProperty('retryAfterMs');
  });

  it('takes the status of an answer whose body never ends, dropping the body past its limit', async () => {
    const url = await start((_r, _b, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(16 * 1024);
      // far more than the 64 KB read; the receiver writes until the sender closes the connection
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    expect(await sender.send(url, '{}', {})).toMatchObject({ ok: true, responseCode: 200 });
  });

  it('keeps the status of an answer whose body is cut short (the receiver has answered)', async () => {
    const url = await start((_r, _b, res) => {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('partial');
      setImmediate(() => res.destroy());
    });
    expect(await sender.send(url, '{}', {})).toMatchObject({ ok: true, responseCode: 200, error: null });
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    const url = await start(() => undefined); // reads the request, never answers
    const impatient = new WebhookSender({ timeoutMs: 1500, allowPrivateTargets: true });
    const result = await impatient.send(url, '{}', {}).finally(() => impatient.close());
    expect(result).toMatchObject({ ok: false, responseCode: null, error: 'no answer within 1500 ms' });
    expect(result.permanent).toBeUndefined();
  });

  it('reports a refused connection as a failed attempt that may succeed later', async () => {
    const url = await start((_r, _b, res) => res.writeHead(200).end());
    const closed = servers.pop()!;
    await new Promise((r) => closed.close(r));
    const result = await sender.send(url, '{}', {});
    expect(result).toMatchObject({ ok: false, responseCode: null });
    expect(result.error).toMatch(/ECONNREFUSED/);
    expect(result.permanent).toBeUndefined();
  });

  it('refuses loopback and private targets for good unless they are allowed, and a URL that is not http(s)', async () => {
    const strict = new WebhookSender({ timeoutMs: 1500, allowPrivateTargets: false });
    try {
      expect(await strict.send('http://127.0.0.1:9/hooks', '{}', {})).toMatchObject({ ok: false, permanent: true, responseCode: null });
      expect(await strict.send('http://localhost:9/hooks', '{}', {})).toMatchObject({ ok: false, permanent: true, responseCode: null });
      expect(await strict.send('ftp://example.com/x', '{}', {})).toMatchObject({ ok: false, permanent: true, error: 'target URL must be http(s)' });
      expect(await strict.send('not a url', '{}', {})).toMatchObject({ ok: false, permanent: true, error: 'invalid target URL' });
    } finally {
      await strict.close();
    }
  });
});
