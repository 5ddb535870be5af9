import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import type { RouteInfo, RunningEdge } from '@gateway/app-edge';
import { routeBodies } from './testing/route-bodies';

/* eslint-disable @typescript-eslint/no-explicit-any -- the fuzzer reads arbitrary JSON */

/**
 * Property-based fuzzing of every route the edge registers (read from its routers, so a new route is fuzzed
 * without editing this file). `FUZZ_RUNS` and `FUZZ_SEED` run it longer or elsewhere; a failure prints the
 * shrunk request. Bodies: JSON objects of known and hostile fields, raw and malformed JSON, huge arrays and
 * many keys under the body limit, multipart forms (whole, cut off, with two files...). Properties: no 5xx but a
 * documented 502/503/504, every 4xx in one of the two error forms and short (a 422 lists at most 100 problems),
 * no secret that was sent comes back, /readyz stays 200. Afterwards every record that exists can be read,
 * listed and updated.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);

/** Planted in every field that holds a secret: no answer may contain it. */
const SECRET = 'EAAfuzzSECRETvalue0123456789abcdef';
const SECRET_FIELDS = ['access_token', 'webhook_secret', 'pin', 'api_key'];

const FIELDS = [
  'client_id',
  'display_name',
  'external_id',
  'webhook_url',
  'success_redirect_url',
  'failure_redirect_url',
  'business_account_id',
  'phone_number_id',
  'provider_business_id',
  'catalog_id',
  'to',
  'text',
  'body',
  'buttons',
  'sections',
  'header',
  'footer',
  'flow_id',
  'flow_token',
  'flow_json',
  'flow_action',
  'flow_action_payload',
  'mode',
  'button_text',
  'name',
  'categories',
  'components',
  'lang',
  'template_name',
  'latitude',
  'longitude',
  'url',
  'emoji',
  'message_id',
  'users',
  'reply_to',
  'call_id',
  'sdp',
  'state',
  'code',
  'reason',
  'email',
  'plan',
  'stream',
  'seqs',
  'limit',
  'cursor',
  'status',
  'event_type',
  'title',
  'rows',
  'id',
  'data',
  'screen',
  'product_retailer_id',
  'thumbnail_product_retailer_id',
  'clone_flow_id',
  'endpoint_uri',
  'billing_customer_id',
];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];
const UNKNOWN_METHODS = ['PROPFIND', 'PURGE', 'LINK', 'SEARCH', 'MKCOL', 'TRACE'];
const STANDARD_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

/** Percent-encoding of any string (a lone surrogate cannot travel in a URL: it goes as its UTF-8 replacement). */
const enc = (s: string) => encodeURIComponent((s as string & { toWellFormed(): string }).toWellFormed());
const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const hostileStrings = fc.constantFrom(
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ufeff',
  '💥',
  'x'.repeat(70_000),
  '../../etc/passwd',
  '%00',
  '%ED%A0%80',
  '<script>alert(1)</script>',
  "'; DROP TABLE clients;--",
  '-271821-04-20T00:00:00.000Z',
  '1e309',
  'NaN',
  'null',
  '{}',
  'true',
  'https://169.254.169.254/latest',
  'http://[::ffff:0:7f00:1]/',
  'https://example.com/x.webp',
  '+16505551234',
  'v'.repeat(300),
);
const atoms = fc.oneof(
  { weight: 3, arbitrary: hostileStrings },
  { weight: 2, arbitrary: fc.string({ maxLength: 40, unit: 'binary' }) },
  fc.double(),
  fc.integer(),
  fc.constantFrom(1e308, -0, Number.MAX_SAFE_INTEGER + 2, 0.1),
  fc.boolean(),
  fc.constant(null),
  fc.constant(new Array(5000).fill(1)),
);

interface Ctx {
  ownClient: string;
  otherClient: string;
  ownFlow: string;
  otherFlow: string;
}

function paramValue(name: string, ids: Ctx): fc.Arbitrary<string> {
  const plausible = name.includes('flow') ? [ids.ownFlow, ids.otherFlow] : [ids.ownClient, ids.otherClient];
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...plausible, randomUUID()) },
    { weight: 3, arbitrary: hostileStrings.map(enc) },
    { weight: 1, arbitrary: fc.constantFrom('%00', '%ED%A0%80', '%', '%E0%A4%A', '__proto__', '..', 'constructor', '12345678901234567890') },
  );
}

interface FuzzRequest {
  method: string;
  path: string;
  route: string;
  auth: 'own' | 'other' | 'none' | 'admin';
  headers: Record<string, string>;
  body?: string;
}

function requests(routes: RouteInfo[], ids: Ctx, arrayKeys: Map<string, string[]>): fc.Arbitrary<FuzzRequest> {
  const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small', withCrossShrink: true }, atoms, fc.array(tie('v'), { maxLength: 4 }), tie('o')),
    o: fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), fc.constantFrom(...PROTO_KEYS), fc.string({ maxLength: 8 })), tie('v'), { maxKeys: 5 }),
  })).v;
  const objectBody = fc
    .record({
      fields: fc.dictionary(fc.constantFrom(...FIELDS, ...PROTO_KEYS), value, { maxKeys: 6 }),
      clientId: fc.constantFrom(ids.ownClient, ids.otherClient, undefined),
      secret: fc.subarray(SECRET_FIELDS, { maxLength: 2 }),
    })
    .map(({ fields, clientId, secret }) => {
      const o: Record<string, unknown> = { ...fields };
      if (clientId) o.client_id = clientId;
      for (const f of secret) o[f] = SECRET;
      return JSON.stringify(o);
    });
  const rawBody = fc.constantFrom(
    deep(100),
    deep(20_000),
    `{"client_id":"${ids.ownClient}","flow_json":${deep(5000)}}`,
    '['.repeat(50_000),
    '{"a":1,"a":2}',
    `{"client_id":"${ids.ownClient}","client_id":"${ids.otherClient}"}`,
    '{"display_name":"x\\u0000"}',
    '{"display_name":"\\ud800"}',
    '{',
    'null',
    '[]',
    '"str"',
    '42',
    `{"access_token":"${SECRET}",`,
    '\u0000',
    `{"x":"${'y'.repeat(200_000)}"}`,
  );
  // hostile sizes under the body limit (issue 23): huge arrays in the fields the route takes arrays in, many keys
  const hugeArray = (fields: string[]) =>
    fc
      .record({ field: fc.constantFrom(...fields), n: fc.constantFrom(1_000, 120_000), item: fc.constantFrom('"a"', '1', '{}', 'null', '[1]', '{"x":1}') })
      .map(({ field, n, item }) => `{"client_id":"${ids.ownClient}","${field}":[${new Array(n).fill(item).join(',')}]}`);
  const manyKeys = fc.record({ n: fc.constantFrom(1_000, 50_000), nested: fc.constantFrom(...FIELDS, '') }).map(({ n, nested }) => {
    const keys = `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    return nested ? `{"client_id":"${ids.ownClient}","${nested}":${keys}}` : keys;
  });
  const route = fc.constantFrom(...routes);
  return route.chain((r) => {
    const names = [...r.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
    const arrayFields = arrayKeys.get(`${r.method} ${r.path}`) ?? [];
    return fc
      .record({
        method: fc.oneof({ weight: 8, arbitrary: fc.constant(r.method) }, fc.constantFrom(...UNKNOWN_METHODS, ...STANDARD_METHODS)),
        params: fc.tuple(...names.map((n) => paramValue(n, ids))),
        query: fc.dictionary(
          fc.constantFrom('client_id', 'limit', 'cursor', 'status', 'event_type', 'stream', 'hub.mode', 'hub.challenge', '__proto__', 'x'),
          fc.oneof(fc.constantFrom(ids.ownClient, ids.otherClient, '1', '-1', '1000'), hostileStrings),
          { maxKeys: 3 },
        ),
        auth: fc.constantFrom('own', 'other', 'none', ...(r.path.startsWith('/admin') ? (['admin', 'admin'] as const) : (['own', 'own'] as const))),
        body: fc.oneof(
          { weight: 6, arbitrary: objectBody },
          { weight: 2, arbitrary: rawBody },
          { weight: 2, arbitrary: hugeArray(arrayFields.length ? arrayFields : FIELDS) },
          { weight: 1, arbitrary: manyKeys },
          fc.constant(undefined),
        ),
        contentType: fc.oneof(
          { weight: 6, arbitrary: fc.constant('application/json') },
          fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'application/vnd.x+json', ''),
        ),
        multipart: fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: multipartBody(ids) }),
        extraHeaders: fc.dictionary(
          fc.constantFrom('x-request-id', 'idempotency-key', 'x-hub-signature-256', 'accept'),
          fc.constantFrom('', 'x'.repeat(300), 'sha256=00', '../', '*/*'),
          { maxKeys: 2 },
        ),
      })
      .map(({ method, params, query, auth, body: json, contentType, extraHeaders, multipart }) => {
        let i = 0;
        const path = r.path.replace(/:([A-Za-z_]+)/g, () => params[i++]);
        const qs = Object.entries(query)
          .map(([k, v]) => `${enc(k)}=${enc(v)}`)
          .join('&');
        const headers: Record<string, string> = { ...extraHeaders };
        const body = multipart ? multipart.body : json;
        if (multipart) headers['content-type'] = multipart.contentType;
        else if (body !== undefined && contentType) headers['content-type'] = contentType;
        return {
          method,
          path: qs ? `${path}?${qs}` : path,
          route: `${r.method} ${r.path}`,
          auth,
          headers,
          body: ['GET', 'HEAD'].includes(method) ? undefined : body,
        };
      });
  });
}

/**
 * A multipart/form-data body (the media upload's form, and any other route's refusal of it): fields before or
 * after the file, unknown and repeated fields, a second file, a boundary inside the data, or a body cut off
 * anywhere.
 */
function multipartBody(ids: Ctx): fc.Arbitrary<{ contentType: string; body: string }> {
  const boundary = 'fuzzB0undary';
  const field = fc.record({
    name: fc.constantFrom('client_id', 'type', 'file', 'x', '__proto__', ''),
    value: fc.oneof(fc.constantFrom(ids.ownClient, ids.otherClient, 'image/png', 'text/plain', ''), hostileStrings),
  });
  const file = fc.record({
    filename: fc.constantFrom('a.png', 'a.txt', '../../x', ''),
    type: fc.constantFrom('image/png', 'image/jpeg', 'application/pdf', 'text/plain', ''),
    data: fc.constantFrom('\x89PNG\r\n\x1a\n' + 'x'.repeat(64), '%PDF-1.4', 'plain', `--${boundary}`, 'x'.repeat(20_000)),
  });
  const part = fc.oneof(
    field.map((f) => `--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"\r\n\r\n${f.value}\r\n`),
    file.map((f) => `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f.filename}"\r\nContent-Type: ${f.type}\r\n\r\n${f.data}\r\n`),
    fc.constantFrom('garbage\r\n', `--${boundary}\r\n\r\n`, `--${boundary}\r\nContent-Disposition: form-data\r\n\r\nx\r\n`),
  );
  return fc
    .record({
      parts: fc.array(part, { maxLength: 12 }),
      end: fc.constantFrom(`--${boundary}--\r\n`, '', `--${boundary}`),
      cut: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.nat() }),
    })
    .map(({ parts, end, cut }) => {
      const body = parts.join('') + end;
      return { contentType: `multipart/form-data; boundary=${boundary}`, body: cut === null ? body : body.slice(0, cut % (body.length + 1)) };
    });
}

/** Any method (fetch refuses some, like TRACE), any bytes. */
function send(
  base: string,
  req: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; contentType: string; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(base);
    // a declared length: Node sends no body framing at all for DELETE, OPTIONS... otherwise
    const headers = req.body === undefined ? req.headers : { ...req.headers, 'content-length': String(Buffer.byteLength(req.body)) };
    const r = httpRequest({ host: url.hostname, port: url.port, method: req.method, path: req.path, headers }, (res) => {
      // a live stream (GET /api/stream) stays open: its answer is its status and type
      if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        res.destroy();
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type']), text: '' });
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    r.on('error', reject);
    r.end(req.body);
  });
}

/** fast-check's report with long runs of one character folded (`[×50000`), so a shrunk request stays readable. */
function foldedReport<T>(details: fc.RunDetails<T>): void {
  if (!details.failed) return;
  const fold = (t: string) => t.replace(/(.)\1{99,}/gs, (run, c: string) => `${c}×${run.length}`).replace(/((?:1,){50})(?:1,)+/g, '$1…');
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(fold(`${fc.defaultReportMessage(details) ?? ''}\n${error}`));
}

const isValidationForm = (j: any) =>
  j &&
  Array.isArray(j.detail) &&
  j.detail.length > 0 &&
  j.detail.every(
    (d: any) =>
      Array.isArray(d.loc) &&
      d.loc.every((p: unknown) => typeof p === 'string') &&
      typeof d.msg === 'string' &&
      typeof d.type === 'string' &&
      'input' in d &&
      d.ctx &&
      typeof d.ctx === 'object',
  );
const isErrorForm = (j: any) => j && typeof j.detail === 'string' && typeof j.code === 'string';

describe('fuzzing every edge route with hostile requests', () => {
  let stack: Stack;
  let own: { api: ApiClient; apiKey: string; tenant: { id: string } };
  let other: { api: ApiClient; apiKey: string; tenant: { id: string } };
  let ids: Ctx;
  let routes: RouteInfo[];
  /** Each route's body keys that take arrays ("POST /api/flows" → categories...). */
  let arrayKeys: Map<string, string[]>;
  const tenantsCreated: string[] = [];

  const sim = (path: string, body?: unknown) =>
    fetch(`${stack.sim!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) }).then(
      (r) => r.json() as Promise<any>,
    );

  beforeAll(async () => {
    stack = await startStack();
    own = await stack.createTenant({ name: 'Own' });
    other = await stack.createTenant({ name: 'Other' });
    const client = async (t: typeof own) => {
      const phone = await sim('/_sim/phone-numbers');
      const c = await t.api.post<{ id: string }>('/api/clients/', {
        display_name: 'Shop',
        business_account_id: phone.waba_id,
        phone_number_id: phone.phone_number_id,
        access_token: phone.access_token,
      });
      const f = await t.api.post<{ id: string }>('/api/flows', { client_id: c.json.id, name: 'Fuzzed', categories: ['OTHER'] });
      return { client: c.json.id, flow: f.json.id };
    };
    const a = await client(own);
    const b = await client(other);
    ids = { ownClient: a.client, otherClient: b.client, ownFlow: a.flow, otherFlow: b.flow };
    routes = (stack.running.get('edge') as unknown as RunningEdge).routes;
    arrayKeys = new Map(routeBodies().map((b) => [`${b.method} ${b.path}`, b.arrayKeys]));
  }, 120_000);
  afterAll(() => stack?.stop());

  it('lists the routes from the router', () => {
    expect(routes.length).toBeGreaterThan(30);
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'PUT', path: '/api/flows/:flow_id/json' },
        { method: 'POST', path: '/admin/tenants' },
        { method: 'GET', path: '/readyz' },
      ]),
    );
  });

  it('answers every hostile request without a 5xx, in an error form, without echoing a secret, and stays ready', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(requests(routes, ids, arrayKeys), async (req) => {
        const token = { own: own.apiKey, other: other.apiKey, admin: stack.adminToken, none: undefined }[req.auth];
        const headers: Record<string, string> = { ...req.headers };
        if (token) headers.authorization = `Bearer ${token}`;
        const res = await send(stack.baseUrl, { ...req, headers });
        const text = res.text;
        let json: any;
        try {
          json = text ? JSON.parse(text) : undefined;
        } catch {
          json = undefined;
        }
        const where = `${res.status} ${text.slice(0, 300)}`;
        expect([where, res.status >= 500 && ![502, 503, 504].includes(res.status)]).toEqual([where, false]);
        if (res.status >= 500) expect([where, isErrorForm(json)]).toEqual([where, true]);
        const html = res.contentType.startsWith('text/html');
        if (res.status >= 400 && req.method !== 'HEAD' && !(html && req.path.startsWith('/signup/'))) {
          expect([where, isValidationForm(json) || isErrorForm(json)]).toEqual([where, true]);
        }
        // every refusal is short, whatever came in: at most 100 problems listed, the rest counted
        if (res.status >= 400) expect([where, text.length <= 64 * 1024]).toEqual([where, true]);
        if (res.status === 422 && Array.isArray(json?.detail)) expect([where, json.detail.length <= 100]).toEqual([where, true]);
        for (const secret of [SECRET, own.apiKey, other.apiKey, stack.adminToken]) expect([where, text.includes(secret)]).toEqual([where, false]);
        if (res.status === 201 && json?.tenant?.id) tenantsCreated.push(json.tenant.id);
        if (++n % 25 === 0) expect((await stack.api().get('/readyz')).status).toBe(200);
      }),
      { numRuns: RUNS, seed: SEED, verbose: 0, reporter: foldedReport },
    );
    expect((await stack.api().get('/readyz')).status).toBe(200);
  }, 600_000);

  it('leaves every record readable, listable and updatable', async () => {
    for (const t of [own, other]) {
      const clients: Array<{ id: string }> = [];
      let cursor: string | null = null;
      do {
        const page: any = await t.api.get(`/api/clients?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
        expect(page.status).toBe(200);
        clients.push(...page.json.data);
        cursor = page.json.next_cursor;
      } while (cursor);
      expect(clients.length).toBeGreaterThan(0);
      for (const c of clients) {
        expect((await t.api.get(`/api/clients/${c.id}`)).status).toBe(200);
        expect((await t.api.patch(`/api/clients/${c.id}`, { external_id: 'checked' })).status).toBe(200);
        const flows: any = await t.api.get(`/api/flows?client_id=${c.id}`);
        expect([c.id, flows.status]).toEqual([c.id, 200]);
        for (const f of flows.json.data as Array<{ id: string; status: string }>) {
          expect((await t.api.get(`/api/flows/${f.id}?client_id=${c.id}`)).status).toBe(200);
          if (f.status === 'DRAFT')
            expect(
              (await t.api.put(`/api/flows/${f.id}/json`, { client_id: c.id, flow_json: { version: '7.0', screens: [] } })).status,
            ).not.toBeGreaterThanOrEqual(500);
        }
      }
      expect((await t.api.put('/api/tenants/webhook-url', { webhook_url: 'https://hooks.example.com/checked' })).status).toBe(200);
    }
    for (const id of [own.tenant.id, other.tenant.id, ...tenantsCreated]) {
      expect((await stack.admin().get(`/admin/tenants/${id}`)).status).toBe(200);
      expect((await stack.admin().get(`/admin/tenants/${id}/api-keys`)).status).toBe(200);
    }
  }, 120_000);
});
