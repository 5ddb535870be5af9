import { startStack, type Stack } from '@gateway/test-stack';
import { png, upload } from './testing/media-files';

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
    // the media routes (issue 19): the client is looked up before any provider call, so no provider is needed
    for (const target of [id, unknown]) {
      const up = await upload(stack.baseUrl, b.apiKey, { client_id: target }, { name: 'a.png', bytes: png(4) });
      expect(up.status).toBe(404);
      expect(up.json).toEqual({ detail: 'Client not found', code: 'client_not_found' });
      const get = await b.api.get(`/api/media/1234567890?client_id=${target}`);
      expect(get.status).toBe(404);
      expect(get.json).toEqual({ detail: 'Client not found', code: 'client_not_found' });
      const del = await b.api.delete(`/api/media/1234567890?client_id=${target}`);
      expect(del.status).toBe(404);
      expect(del.json).toEqual({ detail: 'Client not found', code: 'client_not_found' });
    }
    const listB = await b.api.get('/api/clients');
    expect((listB.json as { data: unknown[] }).data).toEqual([]);
    const stillA = await a.api.get(`/api/clients/${id}`);
    expect((stillA.json as { display_name: string }).display_name).toBe('A shop');
  });
});
