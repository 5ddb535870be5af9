import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl, BOOKING_FLOW_JSON } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary provider and API JSON */
type Loose = Record<string, any>;

const validFlow = BOOKING_FLOW_JSON;

describe('flows end to end: edge → flows → provider simulator', () => {
  let stack: Stack;
  let api: ApiClient;
  let account: { phone_number_id: string; waba_id: string; access_token: string };
  let clientId: string;
  let names = 0;

  const sim = (method: string, path: string, body?: unknown) => new SimControl(stack.sim!.url).request(method, path, body);
  const simFlow = async (id: string) => (await sim('GET', `/_sim/flows/${id}`)).json as Loose;
  /** Graph calls the gateway made for this flow since the log was last cleared. */
  const callsFor = async (id: string) =>
    ((await sim('GET', `/_sim/requests?path_contains=${id}`)).json as Loose[]).map((r) => `${r.method} ${r.path.replace(/^\/v\d+\.\d+/, '')}`);
  const clearCalls = () => sim('DELETE', '/_sim/requests');

  const create = async (extra: Record<string, unknown> = {}) => {
    const res = await api.post<Loose>('/api/flows', { client_id: clientId, name: `Flow ${++names}`, categories: ['APPOINTMENT_BOOKING'], ...extra });
    expect(res.status).toBe(200);
    return res.json.id as string;
  };
  const read = async (id: string) => (await api.get<Loose>(`/api/flows/${id}?client_id=${clientId}`)).json;
  const publish = (id: string) => api.post<Loose>(`/api/flows/${id}/publish`, { client_id: clientId });
  const deprecate = (id: string) => api.post<Loose>(`/api/flows/${id}/deprecate`, { client_id: clientId });
  const updateJson = (id: string, flowJson: unknown) => api.put<Loose>(`/api/flows/${id}/json`, { client_id: clientId, flow_json: flowJson });
  const remove = (id: string) => api.delete<Loose>(`/api/flows/${id}?client_id=${clientId}`);
  const expectNull = (res: { status: number; text: string }) => expect([res.status, res.text]).toEqual([200, 'null']);

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'flows', 'edge'] });
    ({ api } = await stack.createTenant({ name: 'Flows tenant' }));
    account = (await sim('POST', '/_sim/phone-numbers')).json;
    const client = await api.post<Loose>('/api/clients/', {
      display_name: 'Bistro',
      business_account_id: account.waba_id,
      phone_number_id: account.phone_number_id,
      access_token: account.access_token,
    });
    clientId = client.json.id;
  });
  afterAll(() => stack.stop());
  beforeEach(async () => {
    await sim('DELETE', '/_sim/faults');
    await clearCalls();
  });

  it('create → update JSON → publish → deprecate: each 200 with null, and the simulator holds the same state at every step', async () => {
    const created = await api.post<Loose>('/api/flows', { client_id: clientId, name: 'Table booking', categories: ['APPOINTMENT_BOOKING'] });
    expect(created.status).toBe(200);
    const id = created.json.id;
    expect(created.json).toEqual({
      id: expect.stringMatching(/^\d+$/),
      client_id: clientId,
      name: 'Table booking',
      status: 'draft',
      categories: ['APPOINTMENT_BOOKING'],
      flow_json: null,
      validation_errors: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(await simFlow(id)).toMatchObject({ waba_id: account.waba_id, name: 'Table booking', status: 'DRAFT', flow_json: null });

    expectNull(await updateJson(id, validFlow));
    expect(await simFlow(id)).toMatchObject({ status: 'DRAFT', flow_json: JSON.stringify(validFlow, null, 2), validation_errors: [] });
    expect(await read(id)).toMatchObject({ status: 'draft', flow_json: validFlow, validation_errors: [] });
    const upload = ((await sim('GET', `/_sim/requests?method=POST&path_contains=${id}/assets`)).json as Loose[])[0];
    expect(upload.raw_content_type).toMatch(/^multipart\/form-data; boundary=/);
    expect(upload.body).toMatchObject({
      asset_type: 'FLOW_JSON',
      name: 'flow.json',
      file: { filename: 'flow.json', content: JSON.stringify(validFlow, null, 2) },
    });

    expectNull(await publish(id));
    expect((await simFlow(id)).status).toBe('PUBLISHED');
    expect((await read(id)).status).toBe('published');

    expectNull(await deprecate(id));
    expect((await simFlow(id)).status).toBe('DEPRECATED');
    expect((await read(id)).status).toBe('deprecated');
  });

  it('updating or deleting a published flow is 409 flow_not_draft and makes no provider call', async () => {
    const id = await create({ flow_json: validFlow });
    expectNull(await publish(id));
    await clearCalls();

    const update = await updateJson(id, validFlow);
    expect(update.status).toBe(409);
    expect(update.json).toEqual({ detail: 'The flow is published: only a draft can be updated', code: 'flow_not_draft', status: 'published' });
    const del = await remove(id);
    expect(del.status).toBe(409);
    expect(del.json).toMatchObject({ code: 'flow_not_draft' });
    expect(await callsFor(id)).toEqual([]);
    expect(await simFlow(id)).toMatchObject({ status: 'PUBLISHED', flow_json: JSON.stringify(validFlow, null, 2) });
  });

  it('deprecating a draft is 409 flow_not_published and publishing twice is 409 flow_not_draft, neither reaching the provider', async () => {
    const id = await create({ flow_json: validFlow });
    const early = await deprecate(id);
    expect(early.status).toBe(409);
    expect(early.json).toMatchObject({ code: 'flow_not_published', status: 'draft' });
    expectNull(await publish(id));
    const again = await publish(id);
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ code: 'flow_not_draft', status: 'published' });
    expect((await callsFor(id)).filter((c) => !c.startsWith('GET '))).toEqual([`POST /${id}/publish`]);
  });

  it('deleting a draft removes it at the provider and here; then it is 404', async () => {
    const id = await create({ flow_json: validFlow });
    expectNull(await remove(id));
    expect((await sim('GET', `/_sim/flows/${id}`)).status).toBe(404);
    for (const res of [await api.get<Loose>(`/api/flows/${id}?client_id=${clientId}`), await remove(id), await publish(id), await updateJson(id, validFlow)]) {
      expect([res.status, res.json]).toEqual([404, { detail: 'Flow not found', code: 'flow_not_found' }]);
    }
    const list = await api.get<Loose>(`/api/flows?client_id=${clientId}`);
    expect(list.json.data.map((f: Loose) => f.id)).not.toContain(id);
  });

  it('a JSON with two problems is a 422 with one detail item per provider error, and the draft keeps the uploaded JSON', async () => {
    const id = await create();
    const broken = { screens: [{ ...validFlow.screens[0], layout: { type: 'SingleColumnLayout', children: [{ type: 'Carousel', images: [] }] } }] };
    const res = await updateJson(id, broken);
    expect(res.status).toBe(422);
    const detail = res.json.detail as Loose[];
    expect(detail).toHaveLength(2);
    for (const d of detail) {
      expect(Object.keys(d).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
      expect(d.loc.slice(0, 2)).toEqual(['body', 'flow_json']);
      expect(d.type).toBe('flow_validation_error');
      expect(d.ctx).toEqual(
        expect.objectContaining({
          error: expect.any(String),
          error_type: expect.any(String),
          line_start: expect.any(Number),
          line_end: expect.any(Number),
          column_start: expect.any(Number),
          column_end: expect.any(Number),
          pointers: [expect.objectContaining({ path: expect.any(String) })],
        }),
      );
    }
    expect(detail[0]).toMatchObject({
      loc: ['body', 'flow_json', 'version'],
      msg: 'The property "version" is required at "$root".',
      input: null,
      ctx: { error: 'MISSING_REQUIRED_PROPERTY', line_start: 1, column_start: 1, pointers: [{ path: 'version' }] },
    });
    expect(detail[1]).toMatchObject({
      loc: ['body', 'flow_json', 'screens', '0', 'layout', 'children', '0', 'type'],
      msg: "Invalid value found for property 'type'.",
      input: 'Carousel',
      ctx: { error: 'INVALID_PROPERTY_VALUE', error_type: 'FLOW_JSON_ERROR', pointers: [{ path: 'screens[0].layout.children[0].type' }] },
    });
    // the line and columns are those of the value in the uploaded text
    const uploaded = (await simFlow(id)).flow_json as string;
    const line = uploaded.split('\n')[detail[1].ctx.line_start - 1];
    expect(line.slice(detail[1].ctx.column_start - 1, detail[1].ctx.column_end)).toBe('"Carousel"');

    expect(uploaded).toBe(JSON.stringify(broken, null, 2));
    const record = await read(id);
    expect(record).toMatchObject({ status: 'draft', flow_json: broken });
    expect(record.validation_errors).toEqual(detail.map((d) => d.ctx));

    await clearCalls();
    const refused = await publish(id);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: 'flow_has_validation_errors', validation_errors: record.validation_errors });
    expect(await callsFor(id)).not.toContain(`POST /${id}/publish`);
  });

  it('creating a flow with an invalid JSON still creates the draft and reports the errors on its record', async () => {
    const res = await api.post<Loose>('/api/flows', { client_id: clientId, name: 'Half done', categories: ['SURVEY'], flow_json: { version: '7.0' } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      status: 'draft',
      flow_json: { version: '7.0' },
      validation_errors: [expect.objectContaining({ error: 'MISSING_REQUIRED_PROPERTY' })],
    });
    expect(await simFlow(res.json.id)).toMatchObject({ status: 'DRAFT', flow_json: JSON.stringify({ version: '7.0' }, null, 2) });
  });

  it('sees a flow published behind our back at the next operation, which is answered by the real state', async () => {
    const id = await create({ flow_json: validFlow });
    await sim('PUT', `/_sim/flows/${id}`, { status: 'PUBLISHED' });
    await clearCalls();
    const update = await updateJson(id, validFlow);
    expect(update.status).toBe(409);
    expect(update.json).toMatchObject({ code: 'flow_not_draft', status: 'published' });
    expect(await callsFor(id)).toEqual([`GET /${id}`]);
    expect((await read(id)).status).toBe('published');
    expectNull(await deprecate(id));
    expect((await simFlow(id)).status).toBe('DEPRECATED');
  });

  it('sees a flow deprecated or deleted behind our back', async () => {
    const deprecated = await create({ flow_json: validFlow });
    expectNull(await publish(deprecated));
    await sim('PUT', `/_sim/flows/${deprecated}`, { status: 'DEPRECATED' });
    const res = await deprecate(deprecated);
    expect([res.status, res.json.code, res.json.status]).toEqual([409, 'flow_not_published', 'deprecated']);

    const deleted = await create();
    await sim('DELETE', `/_sim/flows/${deleted}`);
    const gone = await updateJson(deleted, validFlow);
    expect([gone.status, gone.json.code]).toEqual([404, 'flow_not_found']);
  });

  it("loads a flow created in the provider's tools on first use, with its real state and JSON", async () => {
    const made = (
      await sim('POST', '/_sim/flows', {
        waba_id: account.waba_id,
        name: 'Made in the tools',
        categories: ['CONTACT_US'],
        flow_json: validFlow,
        status: 'PUBLISHED',
      })
    ).json as Loose;
    const record = await read(made.id);
    expect(record).toMatchObject({
      id: made.id,
      client_id: clientId,
      name: 'Made in the tools',
      status: 'published',
      categories: ['CONTACT_US'],
      flow_json: validFlow,
      validation_errors: [],
    });
    const del = await remove(made.id);
    expect([del.status, del.json.code]).toEqual([409, 'flow_not_draft']);

    const draft = (await sim('POST', '/_sim/flows', { waba_id: account.waba_id, name: 'Draft in the tools' })).json as Loose;
    expectNull(await updateJson(draft.id, validFlow));
    expectNull(await publish(draft.id));
    expect((await simFlow(draft.id)).status).toBe('PUBLISHED');
  });

  it("answers the provider's own refusals (139001, 139004, 139003) with the same 409s", async () => {
    const refuse = (method: string, part: string, code: number, message: string) =>
      sim('POST', '/_sim/faults', { match: { method, path_contains: part }, status: 400, error: { code, message } });
    const draft = await create({ flow_json: validFlow });
    await refuse('POST', `${draft}/assets`, 139001, "(#139001) Flow can't be updated");
    const update = await updateJson(draft, validFlow);
    expect(update.status).toBe(409);
    expect(update.json).toMatchObject({ code: 'flow_not_draft', provider_error: { code: 139001 } });
    await refuse('DELETE', draft, 139004, "(#139004) Can't delete published Flow");
    const del = await remove(draft);
    expect([del.status, del.json.code, del.json.provider_error.code]).toEqual([409, 'flow_not_draft', 139004]);

    expectNull(await publish(draft));
    await refuse('POST', `${draft}/deprecate`, 139003, "(#139003) Can't deprecate unpublished Flow");
    const dep = await deprecate(draft);
    expect([dep.status, dep.json.code, dep.json.provider_error.code]).toEqual([409, 'flow_not_published', 139003]);
  });

  it("lists the client's flows as the provider has them now", async () => {
    const id = await create({ flow_json: validFlow });
    await sim('PUT', `/_sim/flows/${id}`, { status: 'PUBLISHED' });
    const list = await api.get<Loose>(`/api/flows?client_id=${clientId}`);
    expect(list.status).toBe(200);
    const mine = (list.json.data as Loose[]).find((f) => f.id === id);
    expect(mine).toMatchObject({ client_id: clientId, status: 'published', flow_json: validFlow });
    const atProvider = ((await sim('GET', `/_sim/flows?waba_id=${account.waba_id}`)).json as Loose[]).map((f) => [f.id, f.status.toLowerCase()]);
    expect((list.json.data as Loose[]).map((f) => [f.id, f.status]).sort()).toEqual(atProvider.sort());
  });

  it('answers a name already used in the business account with 409 flow_name_taken', async () => {
    await create({ name: 'Taken' });
    const dup = await api.post<Loose>('/api/flows', { client_id: clientId, name: 'Taken', categories: ['OTHER'] });
    expect(dup.status).toBe(409);
    expect(dup.json).toMatchObject({ code: 'flow_name_taken', provider_error: { code: 100 } });
  });

  it('clones a flow of the same account with its JSON', async () => {
    const source = await create({ flow_json: validFlow });
    const res = await api.post<Loose>('/api/flows', { client_id: clientId, name: 'Copy', categories: ['OTHER'], clone_flow_id: source });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: 'draft', flow_json: validFlow, validation_errors: [] });
    expect((await simFlow(res.json.id)).flow_json).toBe(JSON.stringify(validFlow, null, 2));
  });
});
