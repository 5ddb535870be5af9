import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenLocal } from '@gateway/testing';
import { AppError } from '@gateway/errors';
import { ProviderClient } from './client';
import { MediaHosts } from './media';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A local HTTP server answering as `handler` says; every request it saw. */
async function server(): Promise<{ url: string; seen: string[]; agents: Array<string | undefined>; handle(h: Handler): void; close(): Promise<void> }> {
  const seen: string[] = [];
  const agents: Array<string | undefined> = [];
  let handler: Handler = (_q, res) => res.end();
  const s: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? '-'}`);
    agents.push(req.headers['user-agent']);
    req.resume();
    req.on('end', () => handler(req, res));
  });
  await listenLocal(s);
  return {
    url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    seen,
    agents,
    handle: (h) => (handler = h),
    close: () => new Promise((r) => s.close(() => r(undefined))),
  };
}

const drain = async (body: AsyncIterable<Buffer>) => {
  const parts: Buffer[] = [];
  for await (const c of body) parts.push(c);
  return Buffer.concat(parts);
};

describe('media downloads only from the provider, bounded', () => {
  let graph: Awaited<ReturnType<typeof server>>;
  let other: Awaited<ReturnType<typeof server>>;
  let client: ProviderClient;
  const limits = { maxBytes: 1000, timeoutMs: 15_000 };
  const info = (url: string) => ({ id: '1', url, mime_type: 'image/png' });

  beforeAll(async () => {
    graph = await server();
    other = await server();
    client = new ProviderClient({
      baseUrl: graph.url,
      apiVersion: 'v21.0',
      timeoutMs: 15_000,
      mediaHosts: ['lookaside.fbsbx.com'],
      userAgent: 'messaging-gateway/9.9.9',
    });
  });
  afterAll(async () => {
    await client.close();
    await graph.close();
    await other.close();
  });
  beforeEach(() => {
    graph.seen.length = 0;
    graph.agents.length = 0;
    other.seen.length = 0;
  });

  it('reads host names as https origins and origins exactly', () => {
    const hosts = new MediaHosts('http://127.0.0.1:9090', ['lookaside.fbsbx.com', 'http://localhost:9191']);
    expect(hosts.list()).toEqual(['http://127.0.0.1:9090', 'https://lookaside.fbsbx.com', 'http://localhost:9191']);
    expect(hosts.allows(new URL('https://lookaside.fbsbx.com/whatsapp_business/attachments/?mid=1'))).toBe(true);
    expect(hosts.allows(new URL('http://lookaside.fbsbx.com/x'))).toBe(false);
    expect(hosts.allows(new URL('https://lookaside.fbsbx.com:8443/x'))).toBe(false);
    expect(hosts.allows(new URL('https://evil.lookaside.fbsbx.com/x'))).toBe(false);
    expect(hosts.allows(new URL('https://user:pw@lookaside.fbsbx.com/x'))).toBe(false);
    expect(hosts.allows(new URL('http://localhost:9191/a'))).toBe(true);
    expect(hosts.allows(new URL('file:///etc/passwd'))).toBe(false);
  });

  it('downloads from the Graph origin with the token: type, length and bytes', async () => {
    graph.handle((_q, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '4' });
      res.end(Buffer.from([1, 2, 3, 4]));
    });
    const d = await client.downloadMedia('tok', info(`${graph.url}/media/1`), limits);
    expect(d).toMatchObject({ contentType: 'image/png', contentLength: 4 });
    expect(await drain(d.body)).toEqual(Buffer.from([1, 2, 3, 4]));
    expect(graph.seen).toEqual(['GET /media/1 Bearer tok']);
    // the media host refuses downloads without a User-Agent (provider-2026.md §9): the configured one goes on each
    expect(graph.agents).toEqual(['messaging-gateway/9.9.9']);
  });

  it('sends the User-Agent on Graph calls too, and refuses a web page answered instead of the media', async () => {
    graph.handle((_q, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: '1', url: `${graph.url}/media/1`, mime_type: 'image/png', file_size: 4 }));
    });
    const found = await client.mediaInfo('tok', '1', '111');
    graph.handle((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!DOCTYPE html><html><body>Sorry</body></html>');
    });
    await expect(client.downloadMedia('tok', found, limits)).rejects.toMatchObject({ kind: 'unavailable', code: 'media_download_refused' });
    expect(graph.agents).toEqual(['messaging-gateway/9.9.9', 'messaging-gateway/9.9.9']);
  });

  it('refuses a URL on another host without a request to it', async () => {
    await expect(client.downloadMedia('tok', info(`${other.url}/media/1`), limits)).rejects.toMatchObject({
      kind: 'unavailable',
      code: 'media_host_not_allowed',
    });
    expect(other.seen).toEqual([]);
  });

  it('does not follow a redirect', async () => {
    graph.handle((_q, res) => {
      res.writeHead(302, { location: `${other.url}/stolen` });
      res.end();
    });
    await expect(client.downloadMedia('tok', info(`${graph.url}/media/1`), limits)).rejects.toMatchObject({ code: 'media_redirect_refused' });
    expect(other.seen).toEqual([]);
  });

  it('refuses a media larger than the bound, announced or not', async () => {
    graph.handle((_q, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '5000' });
      res.end(Buffer.alloc(5000));
    });
    await expect(client.downloadMedia('tok', info(`${graph.url}/media/1`), limits)).rejects.toMatchObject({ kind: 'too_large', code: 'media_too_large' });
    // chunked, announced small by the provider's file_size, longer in fact
    graph.handle((_q, res) => {
      res.writeHead(200, { 'content-type': 'video/mp4' });
      res.write(Buffer.alloc(600));
      res.end(Buffer.alloc(600));
    });
    const d = await client.downloadMedia('tok', { ...info(`${graph.url}/media/1`), file_size: 600 }, limits);
    await expect(drain(d.body)).rejects.toMatchObject({ code: 'provider_bad_response' });
  });

  it('gives up on a download slower than its time bound', async () => {
    graph.handle((_q, res) => {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '10' });
      res.write(Buffer.alloc(2));
      // the rest never comes
    });
    const d = await client.downloadMedia('tok', info(`${graph.url}/media/1`), { maxBytes: 1000, timeoutMs: 300 });
    const err = await drain(d.body).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ kind: 'timeout', code: 'media_download_timeout' });
  });

  it('an expired URL is a 404 media_url_expired; an unknown id a 404 media_not_found with the provider error', async () => {
    graph.handle((_q, res) => {
      res.writeHead(404);
      res.end('Not Found');
    });
    await expect(client.downloadMedia('tok', info(`${graph.url}/media/1`), limits)).rejects.toMatchObject({ kind: 'not_found', code: 'media_url_expired' });
    graph.handle((_q, res) => {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Unsupported get request', type: 'GraphMethodException', code: 100, error_subcode: 33 } }));
    });
    await expect(client.mediaInfo('tok', '42', '111')).rejects.toMatchObject({
      kind: 'not_found',
      code: 'media_not_found',
      details: { provider_error: { code: 100, subcode: 33 } },
    });
    expect(graph.seen).toContain('GET /v21.0/42?phone_number_id=111 Bearer tok');
  });
});
