import { createServer, type Server } from 'node:http';
import { requestContentTypes, requestValidator, listenLocal } from '@gateway/testing';
import { ProviderClient } from './client';

interface Captured {
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
}

/** What the provider answers on success, per call, so every client method completes. */
function successFor(method: string, path: string): unknown {
  if (path.endsWith('/messages') && method === 'POST')
    return { messaging_product: 'whatsapp', contacts: [{ input: '1', wa_id: '1' }], messages: [{ id: 'wamid.X' }] };
  if (path.endsWith('/flows') && method === 'POST') return { id: '1234567890', success: true, validation_errors: [] };
  if (path.endsWith('/assets')) return { success: true, validation_errors: [] };
  if (path.endsWith('/oauth/access_token')) return { access_token: 'EAAG', token_type: 'bearer' };
  if (path.endsWith('/media') && method === 'POST') return { id: '4490709327384033' };
  if (path.endsWith('/block_users')) return { messaging_product: 'whatsapp', block_users: { added_users: [{ input: '+16505551234', wa_id: '16505551234' }] } };
  return { success: true };
}

/**
 * Every request body the provider client can send, captured at the HTTP boundary from the real client, is
 * validated against the request schema of its operation in the provider's own OpenAPI description.
 */
describe("the provider client's requests against the provider's OpenAPI description", () => {
  let server: Server;
  let captured: Captured[] = [];
  let client: ProviderClient;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0];
        captured.push({ method: req.method ?? '', path, contentType: String(req.headers['content-type'] ?? ''), body: Buffer.concat(chunks) });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(successFor(req.method ?? '', path)));
      });
    });
    await listenLocal(server);
    client = new ProviderClient({
      baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
      apiVersion: 'v23.0',
      timeoutMs: 15_000,
      appId: 'app',
      appSecret: 'secret',
    });
  });
  afterAll(async () => {
    await client.close();
    await new Promise((r) => server.close(r));
  });
  beforeEach(() => {
    captured = [];
  });

  async function bodyOf(c: Captured): Promise<unknown> {
    if (c.contentType.startsWith('application/json')) return JSON.parse(c.body.toString('utf8'));
    if (c.contentType.startsWith('multipart/form-data')) {
      const form = await new Response(new Uint8Array(c.body), { headers: { 'content-type': c.contentType } }).formData();
      const fields: Record<string, string> = {};
      form.forEach((v, k) => {
        fields[k] = typeof v === 'string' ? v : `<file ${v.size} bytes>`;
      });
      return fields;
    }
    return c.body.length ? c.body.toString('utf8') : undefined;
  }

  const calls: Array<[string, string, string, (c: ProviderClient) => Promise<unknown>]> = [
    ['register a phone number', '/{Version}/{Phone-Number-ID}/register', 'post', (c) => c.registerPhone('tok', '111', '123456')],
    ['subscribe the app', '/{Version}/{WABA-ID}/subscribed_apps', 'post', (c) => c.subscribeApp('tok', '222')],
    [
      'create a flow with its JSON',
      '/{Version}/{WABA-ID}/flows',
      'post',
      (c) => c.createFlow('tok', '222', { name: 'Booking', categories: ['APPOINTMENT_BOOKING'], flowJson: '{"version":"6.0","screens":[]}' }),
    ],
    ['clone a flow', '/{Version}/{WABA-ID}/flows', 'post', (c) => c.createFlow('tok', '222', { name: 'Copy', categories: ['OTHER'], cloneFlowId: '999' })],
    ['upload a flow JSON', '/{Version}/{Flow-ID}/assets', 'post', (c) => c.uploadFlowJson('tok', '333', '{"version":"6.0","screens":[]}')],
    ['publish a flow', '/{Version}/{Flow-ID}/publish', 'post', (c) => c.publishFlow('tok', '333')],
    ['deprecate a flow', '/{Version}/{Flow-ID}/deprecate', 'post', (c) => c.deprecateFlow('tok', '333')],
    ['block users', '/{Version}/{Phone-Number-ID}/block_users', 'post', (c) => c.blockUsers('tok', '111', ['+16505551234'], true)],
    [
      'upload a media (streamed multipart)',
      '/{Version}/{Phone-Number-ID}/media',
      'post',
      (c) =>
        c.uploadMedia('tok', '111', {
          bytes: (async function* () {
            yield Buffer.from('%PDF-1.4\n');
          })(),
          mimeType: 'application/pdf',
          filename: 'invoice.pdf',
          timeoutMs: 15_000,
        }),
    ],
  ];

  it.each(calls)('%s', async (_name, template, method, call) => {
    await call(client);
    expect(captured).toHaveLength(1);
    const [c] = captured;
    expect(c.method.toLowerCase()).toBe(method);
    const body = await bodyOf(c);
    const types = requestContentTypes(template, method);
    if (types.length === 0) {
      // the file defines no body for the operation: none is sent
      expect(body).toBeUndefined();
      return;
    }
    const type = c.contentType.split(';')[0].trim() || 'application/json';
    if (body === undefined) {
      // a body-less POST where the file allows one (subscribed_apps: every field optional)
      const validate = requestValidator(template, method, types[0]);
      expect(validate({}) ? [] : validate.errors).toEqual([]);
      return;
    }
    // provider-cloud-api.md 5: create takes "JSON (docs) or multipart (OpenAPI)"; the client sends the docs' JSON,
    // whose fields must then satisfy the file's multipart schema. Nowhere else may the content type differ.
    const sameFieldsOtherEncoding = template === '/{Version}/{WABA-ID}/flows' && type === 'application/json';
    if (!sameFieldsOtherEncoding) expect(types).toContain(type);
    const validate = requestValidator(template, method, sameFieldsOtherEncoding ? 'multipart/form-data' : type);
    // as form fields, non-string values travel JSON-encoded (categories: '["OTHER"]')
    const asSent = sameFieldsOtherEncoding
      ? Object.fromEntries(Object.entries(body as Record<string, unknown>).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
      : body;
    expect(validate(asSent) ? [] : validate.errors).toEqual([]);
  });

  it('sends a media upload as the supplement documents it: messaging_product, type, then the file with its type', async () => {
    await client.uploadMedia('tok', '111', {
      bytes: (async function* () {
        yield Buffer.from('%PDF-1.4\n');
      })(),
      mimeType: 'application/pdf',
      filename: 'invoice.pdf',
      timeoutMs: 15_000,
    });
    expect(await bodyOf(captured[0])).toEqual({ messaging_product: 'whatsapp', type: 'application/pdf', file: '<file 9 bytes>' });
    const form = await new Response(new Uint8Array(captured[0].body), { headers: { 'content-type': captured[0].contentType } }).formData();
    const file = form.get('file') as File;
    expect([file.name, file.type, await file.text()]).toEqual(['invoice.pdf', 'application/pdf', '%PDF-1.4\n']);
  });

  it('sends the flow JSON upload as a file part named file with asset_type FLOW_JSON', async () => {
    await client.uploadFlowJson('tok', '333', '{"version":"6.0","screens":[]}');
    expect(await bodyOf(captured[0])).toEqual({ name: 'flow.json', asset_type: 'FLOW_JSON', file: '<file 30 bytes>' });
  });
});
