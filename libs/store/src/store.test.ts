import { createTestDatabase, postgresServerUrl, tempDir, type TestDatabase } from '@gateway/testing';
import { isUniqueViolation, openDb, type Db, type Migration } from './index';

const migrations: Migration[] = [
  { version: 1, name: 'items', sql: 'CREATE TABLE items (id text PRIMARY KEY, n integer NOT NULL, data jsonb, at timestamptz NOT NULL DEFAULT now())' },
  { version: 2, name: 'items_n', sql: 'CREATE INDEX items_n ON items (n)' },
];

interface Backend {
  name: string;
  open(extra?: Migration[]): Promise<Db>;
  cleanup(): Promise<void>;
}

function pgliteBackend(): Backend {
  const dir = tempDir('gw-store-');
  return {
    name: 'pglite',
    open: (extra = []) => openDb({ dataDir: dir.path, schema: 'store_test', migrations: [...migrations, ...extra] }),
    cleanup: async () => dir.remove(),
  };
}

function postgresBackend(): Backend {
  let tdb: TestDatabase | undefined;
  return {
    name: 'postgres',
    async open(extra = []) {
      const server = postgresServerUrl();
      if (!server) throw new Error('TEST_DATABASE_URL is not set: run the suite with `npm test`, which provides a PostgreSQL server');
      tdb ??= await createTestDatabase(server);
      return openDb({ databaseUrl: tdb.databaseUrl, dataDir: '', schema: 'store_test', migrations: [...migrations, ...extra] });
    },
    cleanup: async () => tdb?.drop(),
  };
}

describe.each([
  ['pglite', pgliteBackend],
  ['postgres', postgresBackend],
])('store on %s', (_name, make) => {
  const backend = make();
  afterAll(() => backend.cleanup());

  it('applies migrations once and keeps data across reopen', async () => {
    const db = await backend.open();
    await db.query('INSERT INTO items (id, n, data) VALUES ($1, $2, $3)', ['a', 1, JSON.stringify({ k: 'v' })]);
    await db.close();
    const again = await backend.open([{ version: 3, name: 'col', sql: 'ALTER TABLE items ADD COLUMN note text' }]);
    const rows = await again.query<{ id: string; n: number; data: { k: string }; at: Date; note: string | null }>('SELECT * FROM items');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: 'a', n: 1, data: { k: 'v' }, note: null });
    expect(rows[0].at).toBeInstanceOf(Date);
    const applied = await again.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(applied.map((r) => r.version)).toEqual([1, 2, 3]);
    await again.close();
  });

  it('rolls back a failed transaction and reports unique violations', async () => {
    const db = await backend.open();
    const failure = await db
      .tx(async (q) => {
        await q.query('INSERT INTO items (id, n) VALUES ($1, $2)', ['b', 2]);
        await q.query('INSERT INTO items (id, n) VALUES ($1, $2)', ['a', 3]);
      })
      .catch((e: unknown) => e);
    expect(isUniqueViolation(failure)).toBe(true);
    expect(await db.query('SELECT id FROM items WHERE id = $1', ['b'])).toHaveLength(0);
    await db.close();
  });

  it('fails a statement with an error that names the statement and its SQLSTATE, and holds no value', async () => {
    const db = await backend.open();
    const secret = 'tok-SECRET-value-4711';
    const errors = [
      await db.query('SELECT $1::uuid AS id', [secret]).catch((e: unknown) => e),
      await db.query('INSERT INTO items (id, n) VALUES ($1, $2)', ['a', secret]).catch((e: unknown) => e),
      await db.tx((q) => q.query('INSERT INTO items (id, n, data) VALUES ($1, $2, $3)', ['a', 1, `{"k":"${secret}"}`])).catch((e: unknown) => e),
      await db.query('INSERT INTO items (id, n) VALUES ($1, $2)', [`${secret}\u0000`, 1]).catch((e: unknown) => e),
    ];
    for (const e of errors) {
      expect(e).toBeInstanceOf(Error);
      const everything = JSON.stringify({ ...(e as object), message: (e as Error).message, stack: (e as Error).stack, cause: String((e as Error).cause) });
      expect(everything).not.toContain('SECRET');
      expect((e as { code: string }).code).toMatch(/^[0-9A-Z]{5}$/);
      expect((e as Error).message).toMatch(/^database error [0-9A-Z]{5} in (SELECT|INSERT)/);
    }
    expect(isUniqueViolation(errors[2])).toBe(true);
    await db.close();
  });
});

describe('embedded storage', () => {
  it('creates its data directory and runs with small buffers, on every open', async () => {
    const dir = tempDir('gw-store-conf-');
    try {
      for (let i = 0; i < 2; i++) {
        const db = await openDb({ dataDir: dir.path, schema: 'conf_test', migrations });
        expect(await db.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '16MB' }]);
        expect(await db.query('SHOW work_mem')).toEqual([{ work_mem: '2MB' }]);
        await db.close();
      }
    } finally {
      dir.remove();
    }
  });
});

describe('replicas starting together on one PostgreSQL database', () => {
  it('migrate one at a time: every replica opens, each migration applied once', async () => {
    const server = postgresServerUrl();
    if (!server) throw new Error('TEST_DATABASE_URL is not set: run the suite with `npm test`, which provides a PostgreSQL server');
    const tdb = await createTestDatabase(server);
    try {
      // a fresh schema each round: the race is on creating the schema and its migrations table
      for (let round = 0; round < 3; round++) {
        const schema = `replicas_${round}`;
        const dbs = await Promise.all(Array.from({ length: 4 }, () => openDb({ databaseUrl: tdb.databaseUrl, dataDir: '', schema, migrations })));
        expect(await dbs[0].query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`)).toEqual([{ version: 1 }, { version: 2 }]);
        await Promise.all(dbs.map((d) => d.close()));
      }
    } finally {
      await tdb.drop();
    }
  });
});
