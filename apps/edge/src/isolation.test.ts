import { startStack, type Stack } from '@gateway/test-stack';

describe('tenant isolation', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'edge'], sim: false });
  });
  afterAll(() => stack.stop());

  it("gives tenant B a 404 for every read or write of tenant A's client, exactly like an unknown id", async () => {
    const a = await stack.createTenant({ name: 'A' });
    const b = await stack.createTenant({ name: 'B' });
    const created = await a.api.post('/api/clients/', { display_name: 'A shop' });
    const id = (created.json as { id: string }).id;
    const unknown = '00000000-0000-4000-8000-000000000000';

    for (const target of [id, unknown]) {
      const read = await b.api.get(`/api/clients/${target}`);
      expect(read.status).toBe(404);
      expect(read.json).toEqual({ detail: 'Client not found', code: 'client_not_found' });
      const write = await b.api.patch(`/api/clients/${target}`, { display_name: 'stolen' });
      expect(write.status).toBe(404);
      expect(write.json).toEqual({ detail: 'Client not found', code: 'client_not_found' });
    }
    const listB = await b.api.get('/api/clients');
    expect((listB.json as { data: unknown[] }).data).toEqual([]);
    const stillA = await a.api.get(`/api/clients/${id}`);
    expect((stillA.json as { display_name: string }).display_name).toBe('A shop');
  });
});
