import { randomUUID } from 'node:crypto';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { SimControl } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary provider and API JSON */
type Loose = Record<string, any>;
interface FlowPage {
  data: Array<{ id: string; name: string; client_id: string }>;
  next_cursor: string | null;
}

describe("GET /api/flows pages a client's flows with cursors, newest first, through edge → flows → provider simulator", () => {
  let stack: Stack;
  let a: ApiClient;
  let b: ApiClient;
  let clientA: string;
  let clientB: string;
  /** The 45 flows of clientA, in the order they were created. */
  const created: string[] = [];

  const sim = async (method: string, path: string, body?: unknown) => (await new SimControl(stack.sim!.url).request<Loose>(method, path, body)).json;
  const client = async (api: ApiClient, name: string) => {
    const account = await sim('POST', '/_sim/phone-numbers');
    const res = await api.post<Loose>('/api/clients/', {
      display_name: name,
      business_account_id: account.waba_id,
      phone_number_id: account.phone_number_id,
      access_token: account.access_token,
    });
    return { id: res.json.id as string, wabaId: account.waba_id as string };
  };
  const createFlow = async (api: ApiClient, clientId: string, name: string) => {
    const res = await api.post<Loose>('/api/flows', { client_id: clientId, name, categories: ['OTHER'] });
    expect(res.status).toBe(200);
    return res.json.id as string;
  };
  const list = async (api: ApiClient, clientId: string, params: Record<string, string | number> = {}) => {
    const query = new URLSearchParams({ client_id: clientId, ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) });
    return api.get<FlowPage & Loose>(`/api/flows?${query.toString()}`);
  };
  /** Every page of a walk from the first, with `between` run after the first page. */
  const walk = async (api: ApiClient, clientId: string, limit?: number, between?: () => Promise<void>) => {
    const pages: FlowPage[] = [];
    let cursor: string | null | undefined;
    do {
      const res = await list(api, clientId, { ...(limit === undefined ? {} : { limit }), ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      pages.push(res.json);
      cursor = res.json.next_cursor;
      if (pages.length === 1 && between) await between();
    } while (cursor && pages.length < 100);
    return pages;
  };

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'flows', 'edge'] });
    ({ api: a } = await stack.createTenant({ name: 'Many flows' }));
    ({ api: b } = await stack.createTenant({ name: 'Other tenant' }));
    clientA = (await client(a, 'Flow shop')).id;
    clientB = (await client(b, 'Other shop')).id;
    for (let i = 1; i <= 45; i++) created.push(await createFlow(a, clientA, `Flow ${String(i).padStart(2, '0')}`));
  });
  afterAll(() => stack.stop());

  it('walks 45 flows in pages of 20, 20 and 5 (the default limit), newest first, with no repeat and no gap', async () => {
    const pages = await walk(a, clientA);
    expect(pages.map((p) => p.data.length)).toEqual([20, 20, 5]);
    expect(pages.map((p) => p.next_cursor === null)).toEqual([false, false, true]);
    const ids = pages.flatMap((p) => p.data.map((f) => f.id));
    expect(ids).toEqual([...created].reverse());
    expect(new Set(ids).size).toBe(45);
    expect(pages[0].data[0]).toMatchObject({ name: 'Flow 45', client_id: clientA });
  });

  it('honours limit 1 and 100, and a page of exactly the remaining flows ends the walk', async () => {
    const all = await list(a, clientA, { limit: 100 });
    expect([all.json.data.length, all.json.next_cursor]).toEqual([45, null]);
    const ones = await walk(a, clientA, 1);
    expect(ones.map((p) => p.data.length)).toEqual(Array(45).fill(1));
    expect(ones.flatMap((p) => p.data.map((f) => f.id))).toEqual([...created].reverse());
    const exact = await walk(a, clientA, 15);
    expect(exact.map((p) => p.data.length)).toEqual([15, 15, 15]);
  });

  it('keeps a walk whole when a flow is created between its pages; the next walk starts with that flow', async () => {
    let added = '';
    const pages = await walk(a, clientA, 20, async () => {
      added = await createFlow(a, clientA, 'Made mid-walk');
    });
    expect(pages.map((p) => p.data.length)).toEqual([20, 20, 5]);
    expect(pages.flatMap((p) => p.data.map((f) => f.id))).toEqual([...created].reverse());
    const again = await walk(a, clientA);
    expect(again.map((p) => p.data.length)).toEqual([20, 20, 6]);
    expect(again.flatMap((p) => p.data.map((f) => f.id))).toEqual([added, ...[...created].reverse()]);
    // deleted in the provider's own tools: the next first page (which reads the provider's list) drops it
    await sim('DELETE', `/_sim/flows/${added}`);
    expect((await list(a, clientA)).json.data[0].id).toBe(created[44]);
  });

  it("lists flows made in the provider's own tools in the provider's order (newest first) from their first page on", async () => {
    const fresh = await client(a, 'Tools shop');
    const made: string[] = [];
    for (let i = 1; i <= 5; i++) made.push((await sim('POST', '/_sim/flows', { waba_id: fresh.wabaId, name: `Tools ${i}` })).id);
    const pages = await walk(a, fresh.id, 2);
    expect(pages.map((p) => p.data.length)).toEqual([2, 2, 1]);
    expect(pages.flatMap((p) => p.data.map((f) => f.id))).toEqual([...made].reverse());
  });

  it("answers a garbage, altered or another list's cursor with the same 422 cursor_invalid as the clients list", async () => {
    const first = await list(a, clientA);
    const cursor = first.json.next_cursor!;
    const clientsPage = await a.get<Loose>('/api/clients?limit=1');
    const clientsCursor = clientsPage.json.next_cursor as string;
    expect(clientsCursor).toEqual(expect.any(String));
    const reference = await a.get<Loose>('/api/clients?cursor=garbage');
    expect(reference.status).toBe(422);
    const form = (res: { status: number; json: Loose }) => [
      res.status,
      Object.keys(res.json).sort(),
      (res.json.detail as Loose[]).map((d) => ({ ...d, input: undefined })),
    ];

    // one character inside changed (every bit of it counts; the last character's lowest bits may be padding, so
    // changing the end could leave the decoded cursor as it was)
    const tampered = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    const otherClient = (await client(a, 'Second shop')).id;
    for (const bad of ['garbage', tampered, clientsCursor, `${cursor}.x`]) {
      const res = await list(a, clientA, { cursor: bad });
      expect(form(res)).toEqual(form(reference));
      expect((res.json.detail as Loose[])[0]).toMatchObject({ loc: ['query', 'cursor'], type: 'cursor_invalid', input: bad });
    }
    // a cursor of one client's flows does not page another's, nor another tenant's
    expect(form(await list(a, otherClient, { cursor }))).toEqual(form(reference));
    expect(form(await list(b, clientB, { cursor }))).toEqual(form(reference));
    // and the cursor still works where it was issued
    expect((await list(a, clientA, { cursor })).json.data[0].id).toBe(created[24]);
  });

  it("answers another tenant's client_id with 404 client_not_found, like an unknown one, with or without a cursor", async () => {
    for (const clientId of [clientA, randomUUID()]) {
      const res = await list(b, clientId);
      expect([res.status, res.json]).toEqual([404, { detail: 'Client not found', code: 'client_not_found' }]);
      expect((await list(b, clientId, { limit: 5 })).status).toBe(404);
    }
    // tenant A's cursor in tenant B's hands: the same answer for A's client and for an unknown one
    const cursor = (await list(a, clientA)).json.next_cursor!;
    const answers = await Promise.all([list(b, clientA, { cursor }), list(b, randomUUID(), { cursor })]);
    expect(answers.map((r) => r.status)).toEqual([422, 422]);
    expect(answers[0].json.detail[0].type).toBe(answers[1].json.detail[0].type);
    expect((await list(b, clientB)).json).toEqual({ data: [], next_cursor: null });
  });
});
