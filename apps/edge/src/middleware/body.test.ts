import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { AppError } from '@gateway/errors';
import { readRaw } from './body';

/** What the route saw of a read: its bytes, or the error it ended with. */
type Outcome = { bytes: string } | { error: string };

/**
 * A Koa app whose one route reads its body with `readRaw` (limit 1,000 bytes) and answers what it read, the
 * refusal's status and code otherwise; every outcome is also handed to the test, a client that went away included.
 */
async function app(timeoutMs: number): Promise<{ port: number; server: Server; next(): Promise<Outcome> }> {
  const outcomes: Outcome[] = [];
  const waiting: Array<(o: Outcome) => void> = [];
  const told = (o: Outcome) => {
    const w = waiting.shift();
    if (w) w(o);
    else outcomes.push(o);
  };
  const koa = new Koa();
  koa.silent = true; // a client that hangs up is expected here, not logged
  koa.use(async (ctx) => {
    try {
      const raw = await readRaw(ctx, 1000, timeoutMs);
      told({ bytes: raw.toString('utf8') });
      ctx.body = { bytes: raw.length };
    } catch (e) {
      const code = e instanceof AppError ? e.code : ((e as { code?: string }).code ?? (e as Error).message);
      told({ error: code });
      ctx.status = code === 'body_too_large' ? 413 : code === 'request_body_timeout' ? 408 : 400;
      ctx.body = { code };
    }
  });
  const server = koa.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return {
    port: (server.address() as AddressInfo).port,
    server,
    next: () => (outcomes.length ? Promise.resolve(outcomes.shift()!) : new Promise((r) => waiting.push(r))),
  };
}

/** A chunked POST (no content-length: the limit is found while reading); `end: false` leaves the body open. */
function post(port: number, parts: string[], end = true) {
  const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/', headers: { 'content-type': 'application/json' } });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
  });
  for (const p of parts) req.write(p);
  if (end) req.end();
  return { req, answer };
}

describe('readRaw', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });
  const start = async (timeoutMs = 60_000) => {
    const a = await app(timeoutMs);
    servers.push(a.server);
    return a;
  };

  it('reads a body that arrives in several chunks, whole and in order', async () => {
    const a = await start();
    const parts = ['{"a":', '"' + 'x'.repeat(300) + '",', '"b":[1,2,3]', '}'];
    const { answer } = post(a.port, parts);
    expect(await a.next()).toEqual({ bytes: parts.join('') });
    expect(await answer).toEqual({ status: 200, body: JSON.stringify({ bytes: parts.join('').length }) });
  });

  it('reads an empty body as no bytes', async () => {
    const a = await start();
    const { answer } = post(a.port, []);
    expect(await a.next()).toEqual({ bytes: '' });
    expect((await answer).status).toBe(200);
  });

  it('refuses a body that passes the limit while it is read, and still answers the client', async () => {
    const a = await start();
    // 1,200 bytes in three chunks of 400: the third passes the limit
    const { answer } = post(a.port, ['y'.repeat(400), 'y'.repeat(400), 'y'.repeat(400)]);
    expect(await a.next()).toEqual({ error: 'body_too_large' });
    expect(await answer).toEqual({ status: 413, body: JSON.stringify({ code: 'body_too_large' }) });
  });

  it('refuses a body declared over the limit before reading it, and closes the connection the client holds open', async () => {
    const a = await start();
    // a keep-alive client that declares 5,000 bytes and sends 100 of them: the rest would never come
    const req = httpRequest({
      host: '127.0.0.1',
      port: a.port,
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json', 'content-length': '5000', connection: 'keep-alive' },
    });
    const closed = new Promise<void>((r) => req.once('socket', (socket) => socket.once('close', () => r())));
    const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      req.on('response', (res) => {
        res.resume();
        resolve({ status: res.statusCode!, connection: res.headers.connection });
      });
      req.on('error', reject);
    });
    req.write('x'.repeat(100));
    expect(await a.next()).toEqual({ error: 'body_too_large' });
    expect(await answer).toEqual({ status: 413, connection: 'close' });
    // the server hangs up: nothing waits for the 4,900 bytes (a graceful shutdown waited 10 s for such a socket)
    await closed;
  });

  it('ends the read with an error when the client goes away before the end of its body', async () => {
    const a = await start();
    const { req, answer } = post(a.port, ['{"half":'], false);
    answer.catch(() => undefined); // the client itself hangs up
    // the server has the first chunk once the route has been entered; closing then cuts the body short
    await new Promise<void>((r) => a.server.once('request', () => setImmediate(r)));
    req.destroy();
    const outcome = await a.next();
    expect(outcome).toHaveProperty('error');
    expect((outcome as { error: string }).error).not.toBe('request_body_timeout');
  });

  it('gives up on a body that does not arrive within its timeout, with a 408', async () => {
    const a = await start(300);
    const { req, answer } = post(a.port, ['{"slow":'], false);
    expect(await a.next()).toEqual({ error: 'request_body_timeout' });
    expect(await answer).toEqual({ status: 408, body: JSON.stringify({ code: 'request_body_timeout' }) });
    req.destroy();
  });
});
