import { Agent, createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gracefulClose } from './graceful-close';

/** A server whose requests wait for the test to answer them (`release`), or are answered at once under /now. */
async function server(): Promise<{ server: Server; port: number; close: (cutOffMs: number) => Promise<void>; arrived(): Promise<() => void> }> {
  const waiting: Array<() => void> = [];
  const arrivals: Array<(release: () => void) => void> = [];
  const s = createServer((req, res) => {
    if (req.url === '/now') return void res.end('now');
    const release = () => res.end('released');
    const a = arrivals.shift();
    if (a) a(release);
    else waiting.push(release);
  });
  // as the edge's: an idle keep-alive socket is not closed by the server's own timeout during a test
  s.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  return {
    server: s,
    port: (s.address() as AddressInfo).port,
    close: (cutOffMs) => gracefulClose(s, cutOffMs),
    arrived: () => (waiting.length ? Promise.resolve(waiting.shift()!) : new Promise((r) => arrivals.push(r))),
  };
}

/** A GET on a keep-alive agent: its answer (or error) and the moment its socket closes. */
function get(port: number, path: string, agent: Agent) {
  let socketClosed!: Promise<void>;
  const answer = new Promise<string>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res: IncomingMessage) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve(body));
    });
    socketClosed = new Promise((r) => req.once('socket', (so) => so.once('close', () => r())));
    req.on('error', reject);
    req.end();
  });
  return { answer, socketClosed: () => socketClosed };
}

describe('gracefulClose', () => {
  const agents: Agent[] = [];
  const keepAlive = () => {
    const a = new Agent({ keepAlive: true });
    agents.push(a);
    return a;
  };
  afterEach(() => agents.splice(0).forEach((a) => a.destroy()));

  it('closes at once when nothing is in flight, closing the idle keep-alive sockets', async () => {
    const s = await server();
    const r = get(s.port, '/now', keepAlive());
    expect(await r.answer).toBe('now');
    const started = performance.now();
    await s.close(20_000);
    await r.socketClosed();
    // far below the cut-off: nothing was waited for
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('lets a request in flight finish, then closes its keep-alive socket at once', async () => {
    const s = await server();
    const r = get(s.port, '/slow', keepAlive());
    const release = await s.arrived();
    const started = performance.now();
    let closed = false;
    const closing = s.close(20_000).then(() => (closed = true));
    // still answering: the server waits for it
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    release();
    expect(await r.answer).toBe('released');
    await closing;
    await r.socketClosed();
    // the socket, busy when the close began, was not held open until the cut-off
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it('cuts off a request that is still running at the cut-off', async () => {
    const s = await server();
    const r = get(s.port, '/never', keepAlive());
    await s.arrived();
    await s.close(300);
    await expect(r.answer).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});
