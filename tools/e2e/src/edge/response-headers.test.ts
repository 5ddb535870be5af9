import { startStack, type ApiClient, type ApiResponse, type Stack } from '@gateway/test-stack';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- reading a built document and JSON answers

/** A property name of a secret an answer may hold: an API key, a webhook secret, a CSRF or other token. */
const SECRET_PROPERTY = /(^|_)(secret|api_key|token)$/;

/** The operations whose success answers hold a secret, read from the document: every schema they answer, $refs followed. */
function operationsAnsweringSecrets(doc: Obj): string[] {
  const resolve = (s: Obj): Obj => (s.$ref ? resolve(doc.components.schemas[String(s.$ref).split('/').pop()!]) : s);
  const holdsSecret = (s: Obj | undefined, seen = new Set<Obj>()): boolean => {
    if (!s || typeof s !== 'object' || seen.has(s)) return false;
    seen.add(s);
    const r = resolve(s);
    if (Object.keys(r.properties ?? {}).some((k) => SECRET_PROPERTY.test(k))) return true;
    return [...Object.values(r.properties ?? {}), r.items, r.additionalProperties, ...(r.anyOf ?? [])].some((x) => holdsSecret(x as Obj, seen));
  };
  const out: string[] = [];
  for (const methods of Object.values(doc.paths as Obj)) {
    for (const op of Object.values(methods as Obj)) {
      const answers = Object.entries(op.responses as Obj).filter(([status]) => status.startsWith('2'));
      if (answers.some(([, r]) => Object.values((r as Obj).content ?? {}).some((c) => holdsSecret((c as Obj).schema)))) out.push(op.operationId);
    }
  }
  return out.sort();
}

describe('answers holding a secret are never stored by a cache', () => {
  let stack: Stack;
  let api: ApiClient;
  let apiKey: string;
  let tenantId: string;
  let doc: Obj;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'edge'], sim: false });
    ({ api, apiKey } = await stack.createTenant());
    tenantId = ((await api.get<Obj>('/api/tenants/me')).json as Obj).id;
    doc = (await stack.api().get<Obj>('/openapi.json')).json;
  }, 60_000);
  afterAll(() => stack?.stop());

  const noStore = (res: ApiResponse, status: number) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('cache-control')).toBe('no-store');
  };

  it('the document names every operation answering an API key, a webhook secret or a CSRF token, and says no-store on each answer', () => {
    const secretOps = operationsAnsweringSecrets(doc);
    expect(secretOps).toEqual(
      [
        'adminCreateApiKey',
        'adminGetTenant',
        'adminListTenants',
        'adminResumeTenant',
        'adminSuspendTenant',
        'adminUpdateTenant',
        'createApiKey',
        'createTenant',
        'getSession',
        'getTenant',
        'rotateWebhookSecret',
        'setWebhookUrl',
        'signIn',
      ].sort(),
    );
    for (const methods of Object.values(doc.paths as Obj)) {
      for (const op of Object.values(methods as Obj)) {
        if (!secretOps.includes(op.operationId)) continue;
        for (const [status, r] of Object.entries(op.responses as Obj)) {
          if (status.startsWith('2'))
            expect([op.operationId, (r as Obj).headers?.['Cache-Control']]).toEqual([op.operationId, { $ref: '#/components/headers/NoStore' }]);
        }
      }
    }
    expect(doc.components.headers.NoStore).toMatchObject({ required: true, schema: { const: 'no-store' } });
  });

  it('every such answer carries Cache-Control: no-store, through the real edge', async () => {
    const admin = stack.admin();
    const created = await admin.post<Obj>('/admin/tenants', { name: 'Cached', email: 'ops@cached.test' });
    noStore(created, 201);
    expect(created.json.api_key).toMatch(/^gw_/);
    noStore(await admin.post(`/admin/tenants/${tenantId}/api-keys`), 201);
    noStore(await admin.get(`/admin/tenants/${tenantId}`), 200);
    noStore(await api.post('/api/api-keys'), 201);
    noStore(await api.get('/api/tenants/me'), 200);
    noStore(await api.put('/api/tenants/webhook-url', { webhook_url: 'https://hooks.example.com/in' }), 200);
    noStore(await api.post('/api/tenants/webhook-secret/rotate'), 200);

    const pub = stack.api();
    const signIn = await pub.post<Obj>('/dashboard/session', { api_key: apiKey });
    noStore(signIn, 201);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0];
    noStore(await pub.get('/dashboard/session', { cookie }), 200);
    noStore(await pub.delete('/dashboard/session', { cookie, 'x-csrf-token': signIn.json.csrf_token }), 204);

    // answers without a secret are left to the usual caching rules
    expect((await api.get('/api/clients')).headers.get('cache-control')).toBeNull();
    expect((await admin.get(`/admin/tenants/${tenantId}/api-keys`)).headers.get('cache-control')).toBeNull();
  });
});

describe('every answer of the edge carries X-Content-Type-Options: nosniff', () => {
  let stack: Stack;
  let api: ApiClient;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'edge'], sim: false });
    ({ api } = await stack.createTenant());
  }, 60_000);
  afterAll(() => stack?.stop());

  it('on a sample of routes of every kind: JSON, text, HTML, scripts, redirects, errors of every mapping, unmatched paths', async () => {
    const pub = stack.api();
    const admin = stack.admin();
    const unknownId = '00000000-0000-4000-8000-000000000000';
    const answers: Array<[string, Promise<ApiResponse>]> = [
      ['healthz', pub.get('/healthz')],
      ['readyz', pub.get('/readyz')],
      ['openapi.json', pub.get('/openapi.json')],
      ['docs page', pub.get('/docs')],
      ['docs script', pub.get('/docs/init.js')],
      ['docs missing script', pub.get('/docs/missing.js')],
      ['handshake', pub.get('/webhooks/provider?hub.mode=subscribe&hub.verify_token=sim-verify-token&hub.challenge=1158201444')],
      ['handshake refused', pub.get('/webhooks/provider?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1')],
      [
        'unsigned webhook',
        pub.post('/webhooks/provider', { object: 'whatsapp_business_account', entry: [] }, { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }),
      ],
      ['signup page unknown', pub.get('/signup/not-a-client')],
      ['dashboard redirect', pub.get('/dashboard')],
      ['dashboard session missing', pub.get('/dashboard/session')],
      ['api without key', pub.get('/api/clients')],
      ['api list', api.get('/api/clients')],
      ['api not found', api.get(`/api/clients/${unknownId}`)],
      ['api validation', api.post('/api/clients', {})],
      ['api method not allowed', api.put('/api/tenants/me', {})],
      ['unmatched path', pub.get('/nowhere')],
      ['admin dead letters', admin.get('/admin/dead-letters')],
    ];
    const seen = await Promise.all(answers.map(async ([name, res]) => [name, (await res).status, (await res).headers.get('x-content-type-options')]));
    expect(seen.filter(([, , header]) => header !== 'nosniff')).toEqual([]);
    // the sample covers what it means to: answers and errors of every kind
    expect(seen.map(([, status]) => status)).toEqual(expect.arrayContaining([200, 308, 401, 403, 404, 405, 422]));
  });
});
