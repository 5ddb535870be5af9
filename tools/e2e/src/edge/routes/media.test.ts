import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { common } from '@gateway/config';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

import { mp4Head, multipart, pdf, png, upload, webp } from '../testing/media-files';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary provider JSON */

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('media: upload, send by id, download what customers send, delete (issue 19)', () => {
  let stack: Stack;
  let api: ApiClient;
  let key: string;
  let sim: SimControl;
  let receiver: WebhookReceiver;
  let phone: { phone_number_id: string; waba_id: string; access_token: string };
  let clientId: string;
  const to = '+16505551234';

  beforeAll(async () => {
    stack = await startStack({
      services: ['tenant-directory', 'messaging', 'dispatcher', 'edge'],
      env: { WEBHOOK_RETRY_DELAYS_MS: '200,400', BODY_TIMEOUT_MS: '1500' },
    });
    sim = new SimControl(stack.sim!.url);
    receiver = await startWebhookReceiver();
    const t = await stack.createTenant({ name: 'Media shop', webhook_url: receiver.url });
    ({ api } = t);
    key = t.apiKey;
    phone = await sim.phoneNumber();
    const c = await api.post('/api/clients/', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    clientId = (c.json as { id: string }).id;
    // the recipient wrote in: free-form sends go (the 24-hour window)
    await sim.inboundMessage(phone.phone_number_id, to, 'text', { body: 'hi' });
  }, 60_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });
  beforeEach(() => sim.reset());

  const DAY = 86_400_000;
  const uploads = async () => (await sim.calls('/media')).filter((c) => c.method === 'POST');

  it('uploads a real PNG, PDF and WebP sticker, answers their id, type, hash and size, and each is sent by media_id', async () => {
    const files = [
      { name: 'photo.png', type: 'image/png', bytes: png(64), mime: 'image/png', send: { type: 'image', caption: 'Your order' } },
      {
        name: 'invoice.pdf',
        type: 'application/pdf',
        bytes: pdf(),
        mime: 'application/pdf',
        send: { type: 'document', filename: 'invoice.pdf', caption: 'Invoice' },
      },
      { name: 'thanks.webp', type: 'image/webp', bytes: webp(), mime: 'image/webp', send: { type: 'sticker' } },
    ];
    for (const f of files) {
      await sim.reset();
      const res = await upload(stack.baseUrl, key, { client_id: clientId }, f);
      expect(res.status).toBe(200);
      expect(res.json).toEqual({ id: expect.stringMatching(/^\d+$/), mime_type: f.mime, sha256: sha256(f.bytes), file_size: f.bytes.length });
      // what reached the provider: the multipart the provider documents, the file's exact bytes, the client's token
      const [call] = await uploads();
      expect(call.path).toBe(`/v25.0/${phone.phone_number_id}/media`);
      expect(call.body).toEqual({
        messaging_product: 'whatsapp',
        type: f.mime,
        file: { filename: f.name, type: f.mime, size: f.bytes.length, sha256: sha256(f.bytes) },
      });

      const sent = await api.post('/api/messaging/send-media', { client_id: clientId, to, media_id: res.json.id, ...f.send });
      expect(sent.status).toBe(200);
      const [message] = (await sim.calls('/messages')).filter((c) => c.method === 'POST');
      const { type, ...fields } = f.send;
      expect(message.body).toEqual({ messaging_product: 'whatsapp', recipient_type: 'individual', to, type, [type]: { id: res.json.id, ...fields } });
    }
  });

  it('an inbound image arrives as a chat event, and its bytes download through GET /api/media byte for byte', async () => {
    const bytes = png(48, 7);
    const inbound = await sim.inboundMedia(phone.phone_number_id, '16505559876', 'image', { bytes, caption: 'broken part' });
    const event = await waitFor(() => receiver.received.find((r) => r.raw.toString('utf8').includes(inbound.wamid)), { what: 'the chat event' });
    const message = (event.body as any).payload.entry[0].changes[0].value.messages[0];
    expect(message).toMatchObject({ type: 'image', image: { id: inbound.media_id, mime_type: 'image/png', sha256: sha256(bytes), caption: 'broken part' } });

    const res = await fetch(`${stack.baseUrl}/api/media/${message.image.id}?client_id=${clientId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    // the gateway asked the provider for the URL with the number to check ownership
    const [info] = await sim.calls(`/${message.image.id}`);
    expect(info).toMatchObject({ method: 'GET', path: `/v25.0/${message.image.id}` });
    // the media host serves the file only to a request with a User-Agent (provider-2026.md §9): the gateway's own
    expect((await sim.mediaDownloads()).at(-1)?.user_agent).toBe(`messaging-gateway/${common.GATEWAY_VERSION}`);
  });

  it('a media id a customer sent lives 7 days, an uploaded one 30 (the simulator clock): then 404 media_not_found', async () => {
    const inbound = await sim.inboundMedia(phone.phone_number_id, '16505559876', 'image');
    const up = await upload(stack.baseUrl, key, { client_id: clientId }, { name: 'note.pdf', type: 'application/pdf', bytes: pdf() });
    expect(up.status).toBe(200);
    const download = (id: string) => fetch(`${stack.baseUrl}/api/media/${id}?client_id=${clientId}`, { headers: { authorization: `Bearer ${key}` } });
    try {
      await sim.advanceClock(6 * DAY);
      expect((await download(inbound.media_id)).status).toBe(200);
      await sim.advanceClock(DAY + 60_000);
      const gone = await download(inbound.media_id);
      expect([gone.status, ((await gone.json()) as any).code]).toEqual([404, 'media_not_found']);
      expect((await download(up.json.id)).status).toBe(200);
      await sim.advanceClock(23 * DAY);
      expect((await download(up.json.id)).status).toBe(404);
      // nor can it be sent any more
      const sent = await api.post('/api/messaging/send-media', { client_id: clientId, to, type: 'document', media_id: up.json.id });
      expect([sent.status, (sent.json as any).code]).toEqual([422, 'provider_parameter_invalid']);
    } finally {
      await sim.resetClock();
    }
  });

  it.each([
    ['a document', 'document', 'application/pdf'],
    ['an audio (OPUS)', 'audio', 'audio/ogg'],
    ['a video', 'video', 'video/mp4'],
    ['a sticker', 'sticker', 'image/webp'],
  ] as const)('%s a customer sent downloads with its type', async (_name, type, mime) => {
    const inbound = await sim.inboundMedia(phone.phone_number_id, '16505559876', type);
    const res = await fetch(`${stack.baseUrl}/api/media/${inbound.media_id}?client_id=${clientId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(mime);
    expect(sha256(Buffer.from(await res.arrayBuffer()))).toBe(inbound.sha256);
  });

  it('inbound location and contacts messages arrive as chat events', async () => {
    const loc = await sim.inboundMessage(phone.phone_number_id, '16505559876', 'location', { latitude: 52.37, longitude: 4.89, name: 'Dam' });
    const contacts = await sim.inboundMessage(phone.phone_number_id, '16505559876', 'contacts', [
      { name: { formatted_name: 'Ann Lee' }, phones: [{ phone: '+16505550000', type: 'CELL' }] },
    ]);
    for (const wamid of [loc.wamid, contacts.wamid])
      await waitFor(() => receiver.received.some((r) => r.raw.toString('utf8').includes(wamid)), { what: `chat event ${wamid}` });
  });

  it('refuses a file whose bytes are not what its name says, before any provider call', async () => {
    const res = await upload(stack.baseUrl, key, { client_id: clientId }, { name: 'photo.png', type: 'image/png', bytes: pdf() });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      expect.objectContaining({
        loc: ['body', 'file'],
        type: 'media_type_mismatch',
        ctx: expect.objectContaining({ detected: 'application/pdf', claimed: 'image/png' }),
      }),
    ]);
    // the type field says one thing, the bytes another
    const byType = await upload(stack.baseUrl, key, { client_id: clientId, type: 'image/jpeg' }, { name: 'photo', bytes: png(8) });
    expect(byType.status).toBe(422);
    expect(byType.json.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'media_type_mismatch' });
    expect(await uploads()).toEqual([]);
  });

  it.each([
    [
      'an image over 5 MB',
      {},
      { name: 'big.png', type: 'image/png', bytes: Buffer.concat([png(4), Buffer.alloc(5 * 1024 * 1024)]) },
      ['body', 'file'],
      'media_too_large',
    ],
    [
      'a static sticker over 100 KB',
      {},
      { name: 's.webp', type: 'image/webp', bytes: Buffer.concat([webp(), Buffer.alloc(100 * 1024)]) },
      ['body', 'file'],
      'media_too_large',
    ],
    [
      'a GIF (no media type of the provider)',
      {},
      { name: 'a.gif', type: 'image/gif', bytes: Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64') },
      ['body', 'file'],
      'media_type_unsupported',
    ],
    [
      'an Ogg without OPUS (Vorbis)',
      {},
      {
        name: 'a.ogg',
        type: 'audio/ogg',
        bytes: Buffer.concat([
          Buffer.from('OggS\0\u0002', 'latin1'),
          Buffer.alloc(22),
          Buffer.from([1, 30]),
          Buffer.from('\u0001vorbis', 'latin1'),
          Buffer.alloc(23),
        ]),
      },
      ['body', 'file'],
      'media_type_unsupported',
    ],
    ['an empty file', {}, { name: 'a.pdf', type: 'application/pdf', bytes: Buffer.alloc(0) }, ['body', 'file'], 'media_empty'],
    ['no file', {}, undefined, ['body', 'file'], 'missing'],
    ['a type the provider does not take', { type: 'image/gif' }, { name: 'a.png', bytes: png(4) }, ['body', 'type'], 'enum'],
    ['no client_id', { client_id: undefined }, { name: 'a.png', bytes: png(4) }, ['body', 'client_id'], 'missing'],
  ] as const)('refuses %s with a 422 naming the field, before any provider call', async (_name, fields, file, loc, type) => {
    const f: Record<string, string> = {};
    const given = { client_id: clientId, ...fields } as Record<string, string | undefined>;
    for (const [k, v] of Object.entries(given)) if (v !== undefined) f[k] = v;
    const res = await upload(stack.baseUrl, key, f, file as { name: string; type?: string; bytes: Buffer } | undefined);
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
    expect(await uploads()).toEqual([]);
  });

  it('an animated sticker may be up to 500 KB, a static one 100 KB (the WebP animation flag)', async () => {
    // RIFF/WEBP with a VP8X header whose animation bit is set, padded to the size
    const animated = (size: number) => {
      const head = Buffer.alloc(30);
      head.write('RIFF', 0, 'latin1');
      head.writeUInt32LE(size - 8, 4);
      head.write('WEBPVP8X', 8, 'latin1');
      head.writeUInt32LE(10, 16);
      head[20] = 0x02;
      return Buffer.concat([head, Buffer.alloc(size - head.length)]);
    };
    const ok = await upload(stack.baseUrl, key, { client_id: clientId }, { name: 'wave.webp', type: 'image/webp', bytes: animated(300 * 1024) });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ mime_type: 'image/webp', file_size: 300 * 1024 });
    const big = await upload(stack.baseUrl, key, { client_id: clientId }, { name: 'wave.webp', type: 'image/webp', bytes: animated(501 * 1024) });
    expect(big.status).toBe(422);
    expect(big.json.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'media_too_large', ctx: { max_bytes: 500 * 1024 } });
  });

  it('a client whose signup is not finished has no number for media: 409 client_not_active', async () => {
    const pending = await api.post('/api/clients/', { display_name: 'Pending shop' });
    const id = (pending.json as { id: string }).id;
    const up = await upload(stack.baseUrl, key, { client_id: id }, { name: 'p.png', bytes: png(8) });
    expect(up.status).toBe(409);
    expect(up.json).toMatchObject({ code: 'client_not_active' });
    expect((await api.get(`/api/media/1234567890?client_id=${id}`)).json).toMatchObject({ code: 'client_not_active' });
    expect(await uploads()).toEqual([]);
  });

  it('refuses a 20 MB video as too large for its type while streaming it, never holding it', async () => {
    const size = 20 * 1024 * 1024;
    const chunk = Buffer.alloc(64 * 1024);
    const chunks = function* () {
      yield mp4Head();
      for (let sent = 24; sent < size; sent += chunk.length) yield chunk.subarray(0, Math.min(chunk.length, size - sent));
    };
    const res = await upload(stack.baseUrl, key, { client_id: clientId }, { name: 'clip.mp4', type: 'video/mp4', size, chunks });
    expect(res.status).toBe(422);
    expect(res.json.detail).toEqual([
      expect.objectContaining({ loc: ['body', 'file'], type: 'media_too_large', ctx: expect.objectContaining({ kind: 'video', max_bytes: 16 * 1024 * 1024 }) }),
    ]);
    expect(await uploads()).toEqual([]);
  });

  it('an upload slower than the JSON body timeout goes through (its own timeout); a JSON body that slow is a 408', async () => {
    // a 3 MB PDF trickling in over about 3 s, while BODY_TIMEOUT_MS is 1.5 s in this stack
    const doc = Buffer.concat([pdf(), Buffer.alloc(3 * 1024 * 1024 - pdf().length, 0x20)]);
    const slices = 12;
    const step = Math.ceil(doc.length / slices);
    const chunks = async function* () {
      for (let i = 0; i < doc.length; i += step) {
        yield doc.subarray(i, i + step);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const started = Date.now();
    const res = await upload(stack.baseUrl, key, { client_id: clientId }, { name: 'report.pdf', type: 'application/pdf', size: doc.length, chunks });
    expect(Date.now() - started).toBeGreaterThan(2500);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ mime_type: 'application/pdf', sha256: sha256(doc), file_size: doc.length });
    const [call] = await uploads();
    expect(call.body).toMatchObject({ file: { size: doc.length, sha256: sha256(doc) } });

    const body = JSON.stringify({ client_id: clientId, to, text: 'slow' });
    const slow = await request(`${stack.baseUrl}/api/messaging/send-text`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': String(body.length) },
      body: Readable.from(
        (async function* () {
          yield Buffer.from(body.slice(0, 5));
          await new Promise((r) => setTimeout(r, 3000));
          yield Buffer.from(body.slice(5));
        })(),
      ),
    }).catch((e: unknown) => e as Error);
    if (!('statusCode' in slow)) throw slow;
    expect(slow.statusCode).toBe(408);
    expect(await slow.body.json()).toEqual({ detail: expect.stringContaining('1500 ms'), code: 'request_body_timeout' });
  });

  it('an upload the tenant breaks off mid-file reaches the provider as no media, and the edge carries on', async () => {
    const doc = Buffer.concat([pdf(), Buffer.alloc(2 * 1024 * 1024, 0x20)]);
    const m = multipart(
      { client_id: clientId },
      {
        name: 'report.pdf',
        type: 'application/pdf',
        size: doc.length,
        chunks: async function* () {
          yield doc.subarray(0, 1024 * 1024);
          // the rest never comes: the tenant's connection goes away
          await new Promise((r) => setTimeout(r, 300));
          throw new Error('tenant went away');
        },
      },
    );
    const res = await request(`${stack.baseUrl}/api/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': m.contentType, 'content-length': String(m.length) },
      body: Readable.from(m.body()),
    }).catch((e: unknown) => e);
    expect(res).toBeInstanceOf(Error);
    // the edge's upload to the provider ends at once (it does not wait for bytes that will not come)
    const metrics = `http://127.0.0.1:${stack.running.get('edge')!.metricsPort}/metrics`;
    await waitFor(
      async () =>
        /provider_calls_total\{[^}]*operation="POST \/\{id\}\/media"[^}]*error_code="upload_aborted"[^}]*\} 1/.test(await (await fetch(metrics)).text()),
      {
        timeoutMs: 30_000,
        what: 'the aborted provider upload in the metrics',
      },
    );
    expect(await uploads()).toEqual([]);
    const after = await upload(stack.baseUrl, key, { client_id: clientId }, { name: 'p.png', bytes: png(8) });
    expect(after.status).toBe(200);
  });

  it('a body over the largest media (100 MB) is a 413 before it is read', async () => {
    const res = await request(`${stack.baseUrl}/api/media`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(101 * 1024 * 1024) },
      body: '--x--\r\n',
    }).catch((e: unknown) => e as Error);
    // the edge answers at once and closes: the client may see the answer or the closed connection
    if ('statusCode' in res) {
      expect(res.statusCode).toBe(413);
      expect(res.headers.connection).toBe('close');
      expect(await res.body.json()).toEqual({ detail: expect.stringContaining('exceeds'), code: 'body_too_large' });
    }
    // every other route keeps the 1 MiB limit
    const json = await api.post('/api/messaging/send-text', { client_id: clientId, to, text: 'x'.repeat(1024 * 1024) });
    expect(json.status).toBe(413);
  });

  it('a JSON body is a 415 on the upload route', async () => {
    const res = await api.post('/api/media', { client_id: clientId });
    expect(res.status).toBe(415);
    expect(res.json).toMatchObject({ code: 'unsupported_media_type' });
  });

  it('an unknown media id is a 404 media_not_found; a deleted media is gone', async () => {
    const unknown = await api.get(`/api/media/999999999999?client_id=${clientId}`);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: 'media_not_found' });
    const up = await upload(stack.baseUrl, key, { client_id: clientId }, { name: 'p.png', bytes: png(8) });
    const del = await api.delete(`/api/media/${up.json.id}?client_id=${clientId}`);
    expect(del.status).toBe(204);
    const [call] = (await sim.calls(`/${up.json.id}`)).filter((c) => c.method === 'DELETE');
    expect(call.path).toBe(`/v25.0/${up.json.id}`);
    expect((await api.get(`/api/media/${up.json.id}?client_id=${clientId}`)).status).toBe(404);
    expect((await api.delete(`/api/media/${up.json.id}?client_id=${clientId}`)).json).toMatchObject({ code: 'media_not_found' });
    // a media id is never a path
    const odd = await api.get(`/api/media/${encodeURIComponent('1/messages')}?client_id=${clientId}`);
    expect(odd.status).toBe(422);
  });

  it("a media URL on a host that is not the provider's is refused without a request to it", async () => {
    const elsewhere = await startWebhookReceiver();
    try {
      const inbound = await sim.inboundMedia(phone.phone_number_id, '16505559876', 'image');
      await sim.setMediaBaseUrl(elsewhere.url);
      const res = await api.get(`/api/media/${inbound.media_id}?client_id=${clientId}`);
      expect(res.status).toBe(503);
      expect(res.json).toMatchObject({ code: 'media_host_not_allowed' });
      expect(elsewhere.received).toEqual([]);
    } finally {
      await sim.setMediaBaseUrl(undefined);
      await elsewhere.close();
    }
  });

  it('provider errors of an upload go through the same classification as sends', async () => {
    await sim.fail('POST', '/media');
    const res = await upload(stack.baseUrl, key, { client_id: clientId }, { name: 'p.png', bytes: png(8) });
    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ code: 'provider_invalid_parameter', provider_error: { code: 100 } });
  });
});
