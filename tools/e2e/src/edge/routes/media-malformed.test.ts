import { connect } from 'node:net';
import { startStack, type ApiClient, type ServiceProcess, type Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';

import { png } from '../testing/media-files';

/*
 * Issue 23, item 1: no error of a request's streams may end the edge. The edge runs as its own OS process here,
 * so a crash is seen as its exit (in-process, it would take the test runner down instead). Every request is
 * written byte for byte on a raw socket: the shapes a well-behaved HTTP client would never send.
 */

interface RawAnswer {
  status: number | null;
  text: string;
}

/** Writes `head` and `body` on a fresh connection; `abortAfter` closes it (RST) after that many body bytes. */
function raw(port: number, head: string, body: Buffer, opts: { abortAfter?: number } = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : null, text });
    };
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', done);
    socket.on('close', done);
    socket.on('connect', () => {
      socket.write(head);
      if (opts.abortAfter === undefined) {
        // not end(): a half-closed connection is one whose answer the server may not write; `Connection: close`
        // ends it after the answer
        socket.write(body);
        return;
      }
      socket.write(body.subarray(0, opts.abortAfter), () => setImmediate(() => socket.resetAndDestroy()));
    });
  });
}

const CRLF = '\r\n';
const field = (b: string, name: string, value: string) => `--${b}${CRLF}Content-Disposition: form-data; name="${name}"${CRLF}${CRLF}${value}${CRLF}`;
const fileHead = (b: string, name = 'file', filename = 'a.png', type = 'image/png') =>
  `--${b}${CRLF}Content-Disposition: form-data; name="${name}"; filename="${filename}"${CRLF}Content-Type: ${type}${CRLF}${CRLF}`;
const close = (b: string) => `${CRLF}--${b}--${CRLF}`;

describe('edge: no malformed or broken-off upload ends the process (issue 23, item 1)', () => {
  let stack: Stack;
  let edge: ServiceProcess;
  let api: ApiClient;
  let key: string;
  let clientId: string;
  let port: number;
  let sim: SimControl;
  const image = png(32);

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], processes: ['edge'] });
    edge = stack.processes.get('edge')!;
    port = stack.running.get('edge')!.port!;
    sim = new SimControl(stack.sim!.url);
    const t = await stack.createTenant({ name: 'Uploader' });
    ({ api } = t);
    key = t.apiKey;
    const phone = await sim.phoneNumber();
    const c = await api.post('/api/clients/', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    clientId = (c.json as { id: string }).id;
  }, 120_000);
  afterAll(() => stack?.stop());

  const requestHead = (boundary: string | null, length: number) =>
    [
      'POST /api/media HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      `Authorization: Bearer ${key}`,
      `Content-Type: multipart/form-data${boundary === null ? '' : `; boundary=${boundary}`}`,
      `Content-Length: ${length}`,
      'Connection: close',
      '',
      '',
    ].join(CRLF);

  /** How many `POST /api/media` requests the edge has finished with (whatever their answer). */
  async function uploadsHandled(): Promise<number> {
    const text = await (await fetch(`http://127.0.0.1:${edge.metricsPort}/metrics`)).text();
    let n = 0;
    for (const m of text.matchAll(/^http_requests_total\{([^}]*)\} (\d+)$/gm))
      if (m[1].includes('route="/api/media"') && m[1].includes('method="POST"')) n += Number(m[2]);
    return n;
  }

  /** The edge is still the same process and answers, both its health and an ordinary authenticated call. */
  async function stillServing() {
    expect(edge.exited()).toBeNull();
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    const me = await api.get('/api/tenants/me');
    expect(me.status).toBe(200);
    expect(edge.exited()).toBeNull();
  }

  const b = 'B';
  const withClient = (client: string) => field(b, 'client_id', client);
  const shapes: { name: string; boundary?: string | null; body: () => Buffer; expect: number[] }[] = [
    // the issue's reproduction: the body ends inside the file part, no closing boundary; an invalid client_id
    { name: 'truncated in the file part (client_id invalid)', body: () => Buffer.from(withClient('x') + fileHead(b) + 'abc'), expect: [422] },
    {
      name: 'truncated in the file part (client_id valid)',
      body: () => Buffer.concat([Buffer.from(withClient(clientId) + fileHead(b)), image.subarray(0, 40)]),
      expect: [422],
    },
    { name: 'truncated in the file part after many bytes', body: () => Buffer.concat([Buffer.from(withClient(clientId) + fileHead(b)), image]), expect: [422] },
    { name: 'truncated in the file part headers', body: () => Buffer.from(withClient(clientId) + `--${b}${CRLF}Content-Disposition: form-da`), expect: [422] },
    {
      name: 'truncated inside the client_id part',
      body: () => Buffer.from(`--${b}${CRLF}Content-Disposition: form-data; name="client_id"${CRLF}${CRLF}${clientId.slice(0, 10)}`),
      expect: [422],
    },
    { name: 'truncated in the preamble', body: () => Buffer.from('--'), expect: [422] },
    { name: 'no boundary at all in the body', body: () => Buffer.from('just some bytes, not a form'), expect: [422] },
    { name: 'missing boundary parameter', boundary: null, body: () => Buffer.from(withClient(clientId) + fileHead(b) + 'abc' + close(b)), expect: [415] },
    {
      name: 'the boundary inside the file data',
      body: () =>
        Buffer.concat([
          Buffer.from(withClient(clientId) + fileHead(b)),
          image.subarray(0, 30),
          Buffer.from(`${CRLF}--${b}${CRLF}garbage that is no part`),
          image.subarray(30),
          Buffer.from(close(b)),
        ]),
      expect: [422],
    },
    {
      name: 'two files',
      body: () =>
        Buffer.concat([Buffer.from(withClient(clientId) + fileHead(b)), image, Buffer.from(CRLF + fileHead(b, 'file', 'b.png')), image, Buffer.from(close(b))]),
      expect: [422],
    },
    {
      name: 'two files, the second truncated',
      body: () =>
        Buffer.concat([Buffer.from(withClient(clientId) + fileHead(b)), image, Buffer.from(CRLF + fileHead(b, 'file', 'b.png')), image.subarray(0, 10)]),
      expect: [422],
    },
    {
      name: 'a file before client_id',
      body: () => Buffer.concat([Buffer.from(fileHead(b)), image, Buffer.from(CRLF + withClient(clientId).slice(0, -2) + close(b))]),
      expect: [422],
    },
    {
      name: 'a file part under another name, truncated',
      body: () => Buffer.concat([Buffer.from(withClient(clientId) + fileHead(b, 'other')), image.subarray(0, 10)]),
      expect: [422],
    },
  ];

  it.each(shapes)('$name: a 4xx answer, and the edge carries on', async (shape) => {
    const body = shape.body();
    const answer = await raw(port, requestHead(shape.boundary === undefined ? b : shape.boundary, body.length), body);
    expect(shape.expect).toContain(answer.status);
    // the error form of every non-2xx answer
    expect(JSON.parse(answer.text.split(CRLF + CRLF)[1])).toEqual(expect.objectContaining({ detail: expect.anything() }));
    await stillServing();
  });

  it.each([
    { name: 'in the client_id part', at: (head: Buffer) => head.indexOf('client_id') + 30 },
    { name: 'in the file part headers', at: (head: Buffer) => head.indexOf('filename') },
    { name: 'mid-file', at: (head: Buffer) => head.length + 20 },
  ])('a connection aborted $name: the edge carries on', async ({ at }) => {
    const head = Buffer.from(withClient(clientId) + fileHead(b));
    const body = Buffer.concat([head, image, Buffer.from(close(b))]);
    const before = await uploadsHandled();
    await raw(port, requestHead(b, body.length), body, { abortAfter: at(head) });
    // the edge sees the abort after the client does: wait until it has finished with the request (or died of it)
    await waitFor(async () => edge.exited() !== null || (await uploadsHandled()) > before, { what: 'the edge done with the aborted upload' });
    await stillServing();
  });

  it('a second file part is a 422 naming file, and neither file is uploaded (issue 23, item 9)', async () => {
    await sim.reset();
    const body = Buffer.concat([
      Buffer.from(withClient(clientId) + fileHead(b)),
      image,
      Buffer.from(CRLF + fileHead(b, 'file', 'b.png')),
      image,
      Buffer.from(close(b)),
    ]);
    const answer = await raw(port, requestHead(b, body.length), body);
    expect(answer.status).toBe(422);
    expect(JSON.parse(answer.text.split(CRLF + CRLF)[1]).detail).toEqual([
      expect.objectContaining({ loc: ['body', 'file'], type: 'extra_forbidden', msg: 'Only one file per upload' }),
    ]);
    expect((await sim.calls('/media')).filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('after all of it, a well-formed upload still goes through', async () => {
    const body = Buffer.concat([Buffer.from(withClient(clientId) + fileHead(b)), image, Buffer.from(close(b))]);
    const answer = await raw(port, requestHead(b, body.length), body);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text.split(CRLF + CRLF)[1])).toMatchObject({ mime_type: 'image/png', file_size: image.length });
    await stillServing();
  });
});
