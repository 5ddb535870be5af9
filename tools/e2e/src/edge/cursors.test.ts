import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';

interface Page {
  data: Array<{ id: string }>;
  next_cursor: string | null;
}

describe('list cursors are opaque and tamper-evident', () => {
  let stack: Stack;
  let a: ApiClient;
  let b: ApiClient;
  let clientA: string;
  let clientB: string;

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'dispatcher', 'edge'], sim: false });
    a = (await stack.createTenant()).api;
    b = (await stack.createTenant()).api;
    for (let i = 0; i < 3; i++) {
      const ca = await a.post('/api/clients/', { display_name: `A${i}` });
      clientA = (ca.json as { id: string }).id;
      const cb = await b.post('/api/clients/', { display_name: `B${i}` });
      clientB = (cb.json as { id: string }).id;
    }
    for (let i = 0; i < 3; i++) {
      expect((await a.post(`/api/clients/${clientA}/webhook/test`)).status).toBe(202);
      expect((await b.post(`/api/clients/${clientB}/webhook/test`)).status).toBe(202);
    }
  }, 60_000);
  afterAll(() => stack.stop());

  const expectBadCursor = (res: { status: number; json: unknown }) => {
    expect(res.status).toBe(422);
    expect((res.json as { detail: Array<{ loc: string[]; type: string }> }).detail).toEqual([
      expect.objectContaining({ loc: ['query', 'cursor'], type: 'cursor_invalid' }),
    ]);
  };

  it("pages through clients with the cursor it gave, and refuses forged, altered and other tenants' cursors with a 422 naming cursor", async () => {
    const page1 = (await a.get<Page>('/api/clients?limit=1')).json;
    const page2 = await a.get<Page>(`/api/clients?limit=1&cursor=${page1.next_cursor}`);
    expect(page2.status).toBe(200);
    expect(page2.json.data[0].id).not.toBe(page1.data[0].id);

    for (const at of ['-271821-04-20T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '0000-01-01T00:00:00.000Z']) {
      expectBadCursor(await a.get(`/api/clients?cursor=${Buffer.from(`${at}|${page1.data[0].id}`).toString('base64url')}`));
    }
    const cursor = page1.next_cursor!;
    const altered = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6);
    expectBadCursor(await a.get(`/api/clients?cursor=${altered}`));
    expectBadCursor(await b.get(`/api/clients?limit=1&cursor=${cursor}`));
    expectBadCursor(await a.get('/api/clients?cursor=x'));
  });

  it("refuses a deliveries cursor of another tenant's or another client's list", async () => {
    const pageA = (await a.get<Page>(`/api/clients/${clientA}/webhook/deliveries?limit=1`)).json;
    expect(pageA.next_cursor).toEqual(expect.any(String));
    const next = await a.get<Page>(`/api/clients/${clientA}/webhook/deliveries?limit=1&cursor=${pageA.next_cursor}`);
    expect(next.status).toBe(200);
    expect(next.json.data).toHaveLength(1);
    // a tenant B delivery id, as the old cursors were, and tenant A's own cursor on B's client
    const pageB = (await b.get<Page>(`/api/clients/${clientB}/webhook/deliveries?limit=1`)).json;
    expectBadCursor(await a.get(`/api/clients/${clientA}/webhook/deliveries?limit=1&cursor=${pageB.data[0].id}`));
    expectBadCursor(await b.get(`/api/clients/${clientB}/webhook/deliveries?limit=1&cursor=${pageA.next_cursor}`));
  });
});
