import { randomUUID } from 'node:crypto';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary API JSON */
type Loose = Record<string, any>;

const validFlow = {
  version: '7.0',
  screens: [{ id: 'ONE', title: 'One', terminal: true, layout: { type: 'SingleColumnLayout', children: [{ type: 'TextBody', text: 'Hi' }] } }],
};

describe('flows of another tenant, client or business account are 404, exactly like unknown ones', () => {
  let stack: Stack;
  let a: ApiClient;
  let b: ApiClient;
  let clientA: string;
  let otherAccountOfA: string;
  let clientB: string;
  let flowId: string;

  const sim = async (method: string, path: string, body?: unknown) => (await new SimControl(stack.sim!.url).request<Loose>(method, path, body)).json;
  const client = async (api: ApiClient, name: string) => {
    const account = await sim('POST', '/_sim/phone-numbers');
    const res = await api.post<Loose>('/api/clients/', {
      display_name: name,
      business_account_id: account.waba_id,
      phone_number_id: account.phone_number_id,
      access_token: account.access_token,
    });
    return res.json.id as string;
  };
  /** Every flow operation by `api` on `flow`, in the name of `client`. */
  const everyOperation = (api: ApiClient, client: string, flow: string) => [
    api.get<Loose>(`/api/flows/${flow}?client_id=${client}`),
    api.put<Loose>(`/api/flows/${flow}/json`, { client_id: client, flow_json: validFlow }),
    api.post<Loose>(`/api/flows/${flow}/publish`, { client_id: client }),
    api.post<Loose>(`/api/flows/${flow}/deprecate`, { client_id: client }),
    api.delete<Loose>(`/api/flows/${flow}?client_id=${client}`),
  ];

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'flows', 'edge'] });
    ({ api: a } = await stack.createTenant({ name: 'A' }));
    ({ api: b } = await stack.createTenant({ name: 'B' }));
    clientA = await client(a, 'A shop');
    otherAccountOfA = await client(a, 'A second shop');
    clientB = await client(b, 'B shop');
    const created = await a.post<Loose>('/api/flows', { client_id: clientA, name: 'Private', categories: ['OTHER'], flow_json: validFlow });
    flowId = created.json.id;
    await sim('DELETE', '/_sim/requests');
  });
  afterAll(() => stack.stop());

  it("gives tenant B a 404 flow_not_found for every operation on tenant A's flow through B's own client", async () => {
    for (const res of await Promise.all(everyOperation(b, clientB, flowId)))
      expect([res.status, res.json]).toEqual([404, { detail: 'Flow not found', code: 'flow_not_found' }]);
    const unknown = '9'.repeat(16);
    for (const res of await Promise.all(everyOperation(b, clientB, unknown)))
      expect([res.status, res.json]).toEqual([404, { detail: 'Flow not found', code: 'flow_not_found' }]);
  });

  it("gives tenant B a 404 client_not_found when it names tenant A's client, like an unknown client, before any provider call", async () => {
    await sim('DELETE', '/_sim/requests');
    for (const client of [clientA, randomUUID()]) {
      const answers = await Promise.all([
        ...everyOperation(b, client, flowId),
        b.get<Loose>(`/api/flows?client_id=${client}`),
        b.post<Loose>('/api/flows', { client_id: client, name: 'Stolen', categories: ['OTHER'] }),
      ]);
      for (const res of answers) expect([res.status, res.json]).toEqual([404, { detail: 'Client not found', code: 'client_not_found' }]);
    }
    expect(await sim('GET', '/_sim/requests')).toEqual([]);
  });

  it("answers a flow of the tenant's other business account as not found", async () => {
    for (const res of await Promise.all(everyOperation(a, otherAccountOfA, flowId))) expect([res.status, res.json.code]).toEqual([404, 'flow_not_found']);
    expect(((await a.get<Loose>(`/api/flows?client_id=${otherAccountOfA}`)).json.data as Loose[]).map((f) => f.id)).not.toContain(flowId);
  });

  it("answers a send of tenant A's flow from tenant B's client exactly like one of a flow that exists nowhere: 404, one provider look-up each", async () => {
    const send = (api: ApiClient, client: string, flow: string) =>
      api.post<Loose>('/api/messaging/send-flow', { client_id: client, to: '+16505551234', body: 'Book', button_text: 'Open', flow_id: flow });
    const lookups = async (flow: string) => ((await sim('GET', `/_sim/requests?path_contains=${flow}`)) as Loose[]).length;
    const unknown = '8'.repeat(16);
    await sim('DELETE', '/_sim/requests');
    const foreign = await send(b, clientB, flowId);
    const nowhere = await send(b, clientB, unknown);
    expect([foreign.status, foreign.json]).toEqual([404, { detail: 'Flow not found', code: 'flow_not_found' }]);
    expect([nowhere.status, nowhere.json]).toEqual([foreign.status, foreign.json]);
    expect([await lookups(flowId), await lookups(unknown)]).toEqual([1, 1]);
    // the tenant's other business account, and an id that is not a flow id at all
    expect((await send(a, otherAccountOfA, flowId)).json).toEqual(foreign.json);
    expect((await send(b, clientB, 'not-a-flow')).json).toEqual(foreign.json);
  });

  it("lets the owner's flows go on to messaging, a flow made in the provider's own tools too", async () => {
    const send = (flow: string) =>
      a.post<Loose>('/api/messaging/send-flow', { client_id: clientA, to: '+16505551234', body: 'Book', button_text: 'Open', flow_id: flow });
    // no messaging service in this stack: reaching it is a 503
    expect((await send(flowId)).status).toBe(503);
    const account = (await a.get<Loose>(`/api/clients/${clientA}`)).json.business_account_id;
    const outside = await sim('POST', '/_sim/flows', { waba_id: account, name: 'Made elsewhere', status: 'PUBLISHED' });
    expect((await send(outside.id)).status).toBe(503);
    expect(((await a.get<Loose>(`/api/flows?client_id=${clientA}`)).json.data as Loose[]).map((f) => f.id)).toContain(outside.id);
  });

  it('leaves the flow untouched for its owner', async () => {
    expect(await sim('GET', `/_sim/flows/${flowId}`)).toMatchObject({ status: 'DRAFT', flow_json: JSON.stringify(validFlow, null, 2) });
    const own = await a.get<Loose>(`/api/flows/${flowId}?client_id=${clientA}`);
    expect(own.json).toMatchObject({ id: flowId, status: 'draft', flow_json: validFlow });
    expect(((await b.get<Loose>(`/api/flows?client_id=${clientB}`)).json.data as Loose[]).map((f) => f.id)).toEqual([]);
  });
});
