import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { validate, compileErrors } from '@readme/openapi-parser';
import { EVENT_TYPES, eventSchema } from '@gateway/events';
import { startStack, type Stack } from '@gateway/test-stack';
import { openApiPath, type RunningEdge } from '@gateway/app-edge';

type Obj = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

describe('GET /openapi.json', () => {
  let stack: Stack;
  let doc: Obj & { paths: Record<string, Obj>; webhooks: Record<string, Obj>; components: { schemas: Record<string, Obj> } };
  beforeAll(async () => {
    stack = await startStack({ services: ['edge'], sim: false });
    const res = await stack.api().get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = res.json as typeof doc;
  });
  afterAll(() => stack.stop());

  it('is a valid OpenAPI 3.1 document (@readme/openapi-parser)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as never);
    if (!result.valid) throw new Error(compileErrors(result));
    expect(result.valid).toBe(true);
  });

  it('describes every route the routers register, and nothing else', () => {
    const routes = (stack.running.get('edge') as unknown as RunningEdge).routes;
    const served = new Set(routes.map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`));
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([p, item]) =>
        Object.keys(item)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m} ${p}`),
      ),
    );
    expect(served.size).toBeGreaterThan(60);
    expect([...served].filter((r) => !documented.has(r))).toEqual([]);
    expect([...documented].filter((r) => !served.has(r))).toEqual([]);
  });

  it('names every operation once, for its action', () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => (op as Obj).operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]+$/);
    expect(ids).toEqual(
      expect.arrayContaining(['sendButtons', 'sendText', 'registerClient', 'listClients', 'listDeliveries', 'createTenant', 'getOpenApiDocument']),
    );
  });

  it('takes request schemas from the joi schemas and documents security, idempotency and the error forms', () => {
    const send = doc.paths['/api/messaging/send-buttons'].post as Obj & {
      requestBody: { content: Record<string, { schema: Obj }> };
      responses: Record<string, Obj>;
      parameters: Obj[];
    };
    const body = send.requestBody.content['application/json'].schema as { properties: Record<string, Obj>; required: string[]; additionalProperties: boolean };
    expect(body.required).toEqual(expect.arrayContaining(['client_id', 'body', 'buttons']));
    // the recipient: a phone number (`to`), a BSUID (`recipient`), or both
    expect((body as { anyOf?: unknown }).anyOf).toEqual([{ required: ['to'] }, { required: ['recipient'] }]);
    expect(body.properties.to).toMatchObject({ type: 'string', pattern: expect.any(String) });
    expect(body.properties.buttons).toMatchObject({ type: 'array', minItems: 1, maxItems: 3 });
    expect(body.additionalProperties).toBe(false);
    expect(send.parameters).toEqual(
      expect.arrayContaining([{ $ref: '#/components/parameters/IdempotencyKey' }, { $ref: '#/components/parameters/RequestId' }]),
    );
    expect(Object.keys(send.responses)).toEqual(expect.arrayContaining(['200', '401', '404', '409', '422', '429', '502', '503', '504']));
    expect((send.responses['200'].headers as Obj)['X-Message-Id']).toMatchObject({ required: true });
    expect(send.security).toEqual([{ apiKey: [] }, { dashboardSession: [] }]);
    expect((doc.paths['/admin/tenants'].post as Obj).security).toEqual([{ adminToken: [] }]);
    expect((doc.paths['/healthz'].get as Obj).security).toEqual([]);
    const error409 = doc.components.schemas.Error409 as { properties: { code: { enum: string[] } } };
    expect(error409.properties.code.enum).toEqual(expect.arrayContaining(['idempotency_key_reused', 'customer_service_window_closed', 'client_not_active']));
    expect(doc.components.schemas.ValidationError).toMatchObject({ required: ['detail'], properties: { detail: { type: 'array' } } });
    const list = (doc.paths['/api/clients'].get as { parameters: Obj[] }).parameters.map((p) => p.name);
    expect(list).toEqual(expect.arrayContaining(['limit', 'cursor']));
  });

  it("describes every event type in `webhooks`, from @gateway/events' schemas, with the signature headers", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type].post as { requestBody: { content: Record<string, { schema: { $ref: string } }> }; parameters: Array<{ name: string }> };
      const name = post.requestBody.content['application/json'].schema.$ref.split('/').pop()!;
      expect(doc.components.schemas[name]).toEqual(JSON.parse(JSON.stringify(eventSchema(type))));
      expect(post.parameters.map((p) => p.name)).toEqual(
        expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Signature-256', 'X-Event-Id']),
      );
    }
  });

  it('enumerates the error codes collected from the code (scripts/collect-error-codes.mjs --check)', () => {
    expect(() =>
      execFileSync(process.execPath, [resolve(__dirname, '../../../../../scripts/collect-error-codes.mjs'), '--check'], { stdio: 'pipe' }),
    ).not.toThrow();
  });
});
