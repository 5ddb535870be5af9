import { randomBytes, randomUUID } from 'node:crypto';
import { create } from '@bufbuild/protobuf';
import { tenantDirectory as td } from '@gateway/contracts';
import { SecretBox } from '@gateway/crypto';
import type { Db } from '@gateway/store';
import { storageBackends } from '@gateway/store/testing';
import { Clients } from './clients';
import { migrations } from './store/migrations';
import { SqlDirectoryRepository } from './store/repository';

describe.each(storageBackends('tenant_directory', migrations, { poolSize: 4 }))('paging clients on %s', (_name, make) => {
  const backend = make();
  let db: Db;
  let clients: Clients;
  let repo: SqlDirectoryRepository;

  beforeAll(async () => {
    db = await backend.open();
    repo = SqlDirectoryRepository.open(db);
    clients = new Clients(repo, new SecretBox(randomBytes(32)), 'https://gw.example.test', async () => undefined);
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });

  const tenantWith = async (createdAt: string[]) => {
    const tenantId = randomUUID();
    await repo.insertTenant({
      id: tenantId,
      name: 'Paged',
      email: 'p@example.test',
      plan: 'free',
      webhook_url: null,
      webhook_secret_enc: 'x',
      billing_customer_id: null,
      billing_subscription_id: null,
    });
    const ids: string[] = [];
    for (const at of createdAt) {
      const id = (await clients.register(create(td.RegisterClientRequestSchema, { tenantId, displayName: `c ${at}` }))).id!;
      await db.query('UPDATE clients SET created_at = $1 WHERE id = $2', [at, id]);
      ids.push(id);
    }
    return { tenantId, ids };
  };

  const walk = async (tenantId: string, limit: number) => {
    const seen: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await clients.list(tenantId, limit, cursor);
      seen.push(page.clients.map((c) => c.id!));
      cursor = page.nextCursor;
    } while (cursor && seen.length < 20);
    return seen;
  };

  it('walks clients created within one millisecond without skipping any (positions keep microseconds)', async () => {
    // three within 12:00:00.123, one at .124, one just before
    const at = [
      '2026-01-01T12:00:00.123001Z',
      '2026-01-01T12:00:00.123500Z',
      '2026-01-01T12:00:00.123999Z',
      '2026-01-01T12:00:00.124000Z',
      '2026-01-01T12:00:00.122999Z',
    ];
    const { tenantId, ids } = await tenantWith(at);
    const newestFirst = [ids[3], ids[2], ids[1], ids[0], ids[4]];
    for (const limit of [1, 2, 3]) expect((await walk(tenantId, limit)).flat()).toEqual(newestFirst);
  });

  it('breaks exact ties by id, and refuses a cursor it never issued with a 422 naming the cursor', async () => {
    const same = '2026-02-01T00:00:00.000001Z';
    const { tenantId, ids } = await tenantWith([same, same, same]);
    const pages = await walk(tenantId, 1);
    expect(pages.flat()).toEqual([...ids].sort().reverse());
    const forged = Buffer.from(`2026-02-31T00:00:00.000001Z|${ids[0]}`).toString('base64url');
    for (const cursor of ['garbage', forged, Buffer.from('2026-02-01T00:00:00.000001Z|not-a-client').toString('base64url')]) {
      await expect(clients.list(tenantId, 1, cursor)).rejects.toMatchObject({
        kind: 'validation',
        details: { detail: [expect.objectContaining({ loc: ['query', 'cursor'], type: 'cursor_invalid' })] },
      });
    }
  });

  it('still reads a millisecond cursor issued before positions kept microseconds', async () => {
    const { tenantId, ids } = await tenantWith(['2026-03-01T00:00:00.100000Z', '2026-03-01T00:00:00.200000Z']);
    const old = Buffer.from(`2026-03-01T00:00:00.200Z|${ids[1]}`).toString('base64url');
    expect((await clients.list(tenantId, 5, old)).clients.map((c) => c.id)).toEqual([ids[0]]);
  });
});
