import { SimControl } from '@gateway/testing';
import { startProviderSim, type RunningProviderSim } from './index';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary provider JSON */
type Loose = Record<string, any>;

interface SimPhone {
  phone_number_id: string;
  waba_id: string;
  access_token: string;
}

const validFlow = {
  version: '7.0',
  screens: [
    {
      id: 'WELCOME',
      title: 'Welcome',
      terminal: true,
      layout: {
        type: 'SingleColumnLayout',
        children: [
          { type: 'TextBody', text: 'Hi' },
          { type: 'Footer', label: 'Done', 'on-click-action': { name: 'complete', payload: {} } },
        ],
      },
    },
  ],
};

describe('provider simulator: Flows API', () => {
  let sim: RunningProviderSim;
  let account: SimPhone;

  const graph = async (method: string, path: string, opts: { json?: unknown; form?: FormData; token?: string } = {}) => {
    const headers: Record<string, string> = { authorization: `Bearer ${opts.token ?? account.access_token}` };
    if (opts.json !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${sim.url}/v21.0/${path}`, {
      method,
      headers,
      body: opts.form ?? (opts.json === undefined ? undefined : JSON.stringify(opts.json)),
    });
    return { status: res.status, json: (await res.json()) as Loose };
  };
  const control = (method: string, path: string, body?: unknown) => new SimControl(sim.url).request<Loose | undefined>(method, path, body);
  const asset = (json: string, fields: Record<string, string> = { asset_type: 'FLOW_JSON', name: 'flow.json' }) => {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([json], { type: 'application/json' }), 'flow.json');
    return form;
  };
  let names = 0;
  const create = async (extra: Record<string, unknown> = {}) => {
    const res = await graph('POST', `${account.waba_id}/flows`, { json: { name: `flow ${++names}`, categories: ['SURVEY'], ...extra } });
    expect(res.status).toBe(200);
    return res.json.id as string;
  };
  const status = async (id: string) => (await control('GET', `/_sim/flows/${id}`)).json!.status as string;

  beforeAll(async () => {
    sim = await startProviderSim({ port: 0, appId: 'app', appSecret: 'secret', verifyToken: 'v', configId: 'c' });
    account = (await control('POST', '/_sim/phone-numbers')).json as SimPhone;
  });
  afterAll(() => sim.stop());

  it('creates a draft and reads it back with the default fields and with requested ones', async () => {
    const res = await graph('POST', `${account.waba_id}/flows`, { json: { name: 'Signup', categories: ['SIGN_UP', 'OTHER'] } });
    expect(res.json).toEqual({ id: expect.stringMatching(/^\d+$/), success: true });
    const id = res.json.id;
    expect((await graph('GET', id)).json).toEqual({ id, name: 'Signup', status: 'DRAFT', categories: ['SIGN_UP', 'OTHER'], validation_errors: [] });
    const some = await graph('GET', `${id}?fields=id,status,whatsapp_business_account,health_status`);
    expect(some.json).toEqual({
      id,
      status: 'DRAFT',
      whatsapp_business_account: { id: account.waba_id },
      health_status: expect.objectContaining({ can_send_message: 'AVAILABLE' }),
    });
    expect((await graph('GET', `${id}?fields=id,colour`)).json.error).toMatchObject({
      code: 100,
      message: '(#100) Tried accessing nonexisting field (colour) on node type (Flow)',
    });
  });

  it('creates a flow with its JSON (multipart, categories as a JSON string) and answers its validation errors', async () => {
    const form = new FormData();
    form.append('name', 'With JSON');
    form.append('categories', '["CONTACT_US"]');
    form.append('flow_json', JSON.stringify({ screens: [] }));
    const res = await graph('POST', `${account.waba_id}/flows`, { form });
    expect(res.json).toMatchObject({ id: expect.any(String), success: true });
    expect(res.json.validation_errors.map((e: Loose) => e.pointers[0].path)).toEqual(['version', 'screens']);
    expect((await control('GET', `/_sim/flows/${res.json.id}`)).json).toMatchObject({
      categories: ['CONTACT_US'],
      flow_json: '{"screens":[]}',
      status: 'DRAFT',
    });
  });

  it('refuses a duplicate name, an unknown category and a missing name with code 100', async () => {
    await create({ name: 'Unique' });
    const dup = await graph('POST', `${account.waba_id}/flows`, { json: { name: 'Unique', categories: ['OTHER'] } });
    expect(dup.json.error).toMatchObject({ code: 100, error_user_title: 'Flow name is not unique' });
    expect((await graph('POST', `${account.waba_id}/flows`, { json: { name: 'x', categories: ['GAMES'] } })).json.error.code).toBe(100);
    expect((await graph('POST', `${account.waba_id}/flows`, { json: { categories: ['OTHER'] } })).json.error.code).toBe(100);
  });

  it('uploads flow JSON as multipart/form-data and keeps a JSON with errors, with line/column and pointers', async () => {
    const id = await create();
    const ok = await graph('POST', `${id}/assets`, { form: asset(JSON.stringify(validFlow, null, 2)) });
    expect(ok.json).toEqual({ success: true, validation_errors: [] });
    expect((await graph('GET', `${id}?fields=json_version`)).json).toEqual({ id, json_version: '7.0' });

    const broken = { screens: [{ ...validFlow.screens[0], layout: { type: 'SingleColumnLayout', children: [{ type: 'Carousel' }] } }] };
    const bad = await graph('POST', `${id}/assets`, { form: asset(JSON.stringify(broken, null, 2)) });
    expect(bad.json.success).toBe(true);
    expect(bad.json.validation_errors).toEqual([
      expect.objectContaining({ error: 'MISSING_REQUIRED_PROPERTY', line_start: 1, column_start: 1, pointers: [expect.objectContaining({ path: 'version' })] }),
      expect.objectContaining({
        error: 'INVALID_PROPERTY_VALUE',
        error_type: 'FLOW_JSON_ERROR',
        line_start: expect.any(Number),
        column_start: expect.any(Number),
        pointers: [expect.objectContaining({ path: 'screens[0].layout.children[0].type' })],
      }),
    ]);
    expect((await control('GET', `/_sim/flows/${id}`)).json).toMatchObject({
      flow_json: JSON.stringify(broken, null, 2),
      validation_errors: bad.json.validation_errors,
    });
    const publish = await graph('POST', `${id}/publish`);
    expect(publish.json.error).toMatchObject({ code: 139002 });
    expect(await status(id)).toBe('DRAFT');
  });

  it('reports text that is not JSON as an INVALID_JSON validation error', async () => {
    const id = await create();
    const res = await graph('POST', `${id}/assets`, { form: asset('{"version": "7.0",') });
    expect(res.json.validation_errors).toEqual([expect.objectContaining({ error: 'INVALID_JSON', line_start: 1, column_start: 19, pointers: [] })]);
  });

  it('accepts flow JSON only as a multipart FLOW_JSON file', async () => {
    const id = await create();
    expect((await graph('POST', `${id}/assets`, { json: { asset_type: 'FLOW_JSON', file: '{}' } })).json.error.code).toBe(100);
    expect((await graph('POST', `${id}/assets`, { form: asset('{}', { asset_type: 'IMAGE' }) })).json.error.code).toBe(100);
  });

  it('moves DRAFT → PUBLISHED → DEPRECATED and refuses every illegal transition with its documented code', async () => {
    const id = await create();
    expect((await graph('POST', `${id}/publish`)).json.error.code).toBe(139002); // no JSON yet
    expect((await graph('POST', `${id}/deprecate`)).json.error.code).toBe(139003);
    await graph('POST', `${id}/assets`, { form: asset(JSON.stringify(validFlow)) });
    expect((await graph('POST', `${id}/publish`)).json).toEqual({ success: true });
    expect(await status(id)).toBe('PUBLISHED');
    expect((await graph('POST', `${id}/publish`)).json.error.code).toBe(139002);
    expect((await graph('POST', `${id}/assets`, { form: asset(JSON.stringify(validFlow)) })).json.error).toMatchObject({
      code: 139001,
      message: "(#139001) Flow can't be updated",
    });
    expect((await graph('POST', id, { json: { name: 'renamed' } })).json.error.code).toBe(139001);
    expect((await graph('DELETE', id)).json.error).toMatchObject({ code: 139004, message: "(#139004) Can't delete published Flow" });
    expect((await graph('POST', `${id}/deprecate`)).json).toEqual({ success: true });
    expect(await status(id)).toBe('DEPRECATED');
    expect((await graph('POST', `${id}/deprecate`)).json.error.code).toBe(139003);
    expect((await graph('DELETE', id)).json.error.code).toBe(139004);
    expect((await graph('POST', `${id}/publish`)).json.error.code).toBe(139002);
  });

  it('deletes a draft, after which the flow does not exist (100, subcode 33)', async () => {
    const id = await create();
    expect((await graph('DELETE', id)).json).toEqual({ success: true });
    expect((await graph('GET', id)).json.error).toMatchObject({ code: 100, error_subcode: 33 });
    expect((await graph('DELETE', id)).json.error).toMatchObject({ code: 100, error_subcode: 33 });
  });

  it("answers another account's flow as non-existent and a bad token with 190", async () => {
    const id = await create();
    const other = (await control('POST', '/_sim/phone-numbers')).json as SimPhone;
    for (const [method, path] of [
      ['GET', id],
      ['POST', `${id}/publish`],
      ['DELETE', id],
      ['POST', `${id}/assets`],
    ]) {
      expect([method, path, (await graph(method, path, { token: other.access_token })).json.error]).toEqual([
        method,
        path,
        expect.objectContaining({ code: 100, error_subcode: 33 }),
      ]);
    }
    expect((await graph('GET', `${account.waba_id}/flows`, { token: other.access_token })).json.error.code).toBe(100);
    expect((await graph('GET', id, { token: 'bogus' })).json.error.code).toBe(190);
  });

  it('updates metadata of a draft and clones a flow with its JSON', async () => {
    const id = await create({ flow_json: JSON.stringify(validFlow) });
    expect((await graph('POST', id, { json: { name: 'Renamed', categories: ['LEAD_GENERATION'] } })).json).toEqual({ success: true });
    expect((await graph('GET', id)).json).toMatchObject({ name: 'Renamed', categories: ['LEAD_GENERATION'] });
    const clone = await graph('POST', `${account.waba_id}/flows`, { json: { name: 'Clone', categories: ['OTHER'], clone_flow_id: id } });
    expect((await control('GET', `/_sim/flows/${clone.json.id}`)).json).toMatchObject({
      status: 'DRAFT',
      flow_json: JSON.stringify(validFlow),
      json_version: '7.0',
    });
  });

  it("lists a business account's flows newest first, page by page", async () => {
    const fresh = (await control('POST', '/_sim/phone-numbers')).json as SimPhone;
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push((await graph('POST', `${fresh.waba_id}/flows`, { json: { name: `L${i}`, categories: ['OTHER'] }, token: fresh.access_token })).json.id);
    const first = await graph('GET', `${fresh.waba_id}/flows?limit=2`, { token: fresh.access_token });
    expect(first.json.data.map((f: Loose) => f.id)).toEqual([ids[2], ids[1]]);
    expect(first.json.data[0]).toEqual({ id: ids[2], name: 'L2', status: 'DRAFT', categories: ['OTHER'], validation_errors: [] });
    expect(first.json.paging.next).toEqual(expect.stringContaining(`/v21.0/${fresh.waba_id}/flows?`));
    const second = await graph('GET', `${fresh.waba_id}/flows?limit=2&after=${first.json.paging.cursors.after}`, { token: fresh.access_token });
    expect(second.json.data.map((f: Loose) => f.id)).toEqual([ids[0]]);
    expect(second.json.paging.next).toBeUndefined();
  });

  it('lists the FLOW_JSON asset with a download URL serving the uploaded text', async () => {
    const id = await create({ flow_json: JSON.stringify(validFlow, null, 2) });
    const assets = await graph('GET', `${id}/assets`);
    expect(assets.json.data).toEqual([{ name: 'flow.json', asset_type: 'FLOW_JSON', download_url: expect.any(String) }]);
    expect(await (await fetch(assets.json.data[0].download_url)).text()).toBe(JSON.stringify(validFlow, null, 2));
  });

  it('lets the control API create flows and change their state behind the client, and records every Graph call', async () => {
    const made = await control('POST', '/_sim/flows', { waba_id: account.waba_id, name: 'From the tools', flow_json: validFlow, status: 'PUBLISHED' });
    expect(made.status).toBe(201);
    expect((await graph('GET', made.json!.id)).json).toMatchObject({ status: 'PUBLISHED', name: 'From the tools' });
    expect((await control('PUT', `/_sim/flows/${made.json!.id}`, { status: 'DEPRECATED' })).json).toMatchObject({ status: 'DEPRECATED' });
    expect((await graph('GET', made.json!.id)).json.status).toBe('DEPRECATED');
    expect((await control('PUT', `/_sim/flows/${made.json!.id}`, { status: 'GONE' })).status).toBe(400);
    const calls = (await control('GET', `/_sim/requests?path_contains=${made.json!.id}`)).json as unknown as Loose[];
    expect(calls.map((c) => `${c.method} ${c.path}`)).toEqual([`GET /v21.0/${made.json!.id}`, `GET /v21.0/${made.json!.id}`]);
    expect((await control('DELETE', `/_sim/flows/${made.json!.id}`)).status).toBe(204);
    expect((await graph('GET', made.json!.id)).json.error.code).toBe(100);
    // with the id a test names, once
    const named = await control('POST', '/_sim/flows', { waba_id: account.waba_id, id: '424242', status: 'DRAFT' });
    expect([named.status, named.json!.id]).toEqual([201, '424242']);
    expect((await control('POST', '/_sim/flows', { waba_id: account.waba_id, id: '424242' })).status).toBe(400);
    expect((await control('POST', '/_sim/flows', { waba_id: account.waba_id, id: '../x' })).status).toBe(400);
  });
});

describe('provider simulator: Flows API with editable published flows (newer provider behaviour)', () => {
  it('moves a published flow back to DRAFT when its JSON is edited instead of refusing with 139001', async () => {
    const sim = await startProviderSim({ port: 0, appId: 'app', appSecret: 'secret', verifyToken: 'v', configId: 'c', publishedFlowsEditable: true });
    try {
      const account = (await (await fetch(`${sim.url}/_sim/phone-numbers`, { method: 'POST' })).json()) as SimPhone;
      const made = (await (
        await fetch(`${sim.url}/_sim/flows`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ waba_id: account.waba_id, flow_json: validFlow, status: 'PUBLISHED' }),
        })
      ).json()) as Loose;
      const form = new FormData();
      form.append('asset_type', 'FLOW_JSON');
      form.append('file', new Blob([JSON.stringify(validFlow)]), 'flow.json');
      const res = await fetch(`${sim.url}/v21.0/${made.id}/assets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${account.access_token}` },
        body: form,
      });
      expect(await res.json()).toEqual({ success: true, validation_errors: [] });
      expect(sim.state.flows.get(made.id)!.status).toBe('DRAFT');
    } finally {
      await sim.stop();
    }
  });
});
