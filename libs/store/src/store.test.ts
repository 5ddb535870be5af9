import { createTestDatabase, postgresServerUrl, tempDir, type TestDatabase } from '@gateway/testing';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePgliteTemplate, isUniqueViolation, openDb, PGLITE_TEMPLATE, type Db, type Migration } from './index';

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

describe('embedded storage of several services on one DATA_DIR', () => {
  it('copies every service its cluster from one template made by initdb once, each cluster its own', async () => {
    const dir = tempDir('gw-store-template-');
    try {
      const a = await openDb({ dataDir: dir.path, schema: 'service_a', migrations });
      const template = join(dir.path, PGLITE_TEMPLATE);
      expect(existsSync(join(template, 'PG_VERSION'))).toBe(true);
      // the second service copies the same template (not made again), and nothing made aside is left beside it
      const made = statSync(join(template, 'PG_VERSION')).mtimeMs;
      const b = await openDb({ dataDir: dir.path, schema: 'service_b', migrations: [] });
      expect(statSync(join(template, 'PG_VERSION')).mtimeMs).toBe(made);
      expect(readdirSync(dir.path).sort()).toEqual([PGLITE_TEMPLATE, 'service_a', 'service_b']);
      // two clusters: a table of one is not in the other, and each keeps its rows across a reopen
      await a.query("INSERT INTO items (id, n) VALUES ('x', 1)");
      expect(await b.query("SELECT to_regclass('service_a.items') AS t")).toEqual([{ t: null }]);
      await a.close();
      await b.close();
      const again = await openDb({ dataDir: dir.path, schema: 'service_a', migrations });
      expect(await again.query('SELECT id, n FROM items')).toEqual([{ id: 'x', n: 1 }]);
      await again.close();
    } finally {
      dir.remove();
    }
  });

  it('keeps a template that is there, and makes one where there is none', () => {
    const dir = tempDir('gw-store-template-made-');
    try {
      const template = join(dir.path, 'nested', 'template');
      ensurePgliteTemplate(template);
      const version = readFileSync(join(template, 'PG_VERSION'), 'utf8');
      expect(version).toMatch(/^\d+\n$/);
      const made = statSync(join(template, 'PG_VERSION')).mtimeMs;
      ensurePgliteTemplate(template);
      expect(statSync(join(template, 'PG_VERSION')).mtimeMs).toBe(made);
      // nothing made aside is left behind
      expect(readdirSync(join(dir.path, 'nested'))).toEqual(['template']);
    } finally {
      dir.remove();
    }
  }, 60_000);
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
