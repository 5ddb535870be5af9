import { createTestDatabase, postgresServerUrl, type TestDatabase } from '@gateway/testing';
import { openDb, type Db, type Migration, type Queryable } from './index';
import { PreparedNames, preparable } from './prepared';

const migrations: Migration[] = [{ version: 1, name: 'items', sql: 'CREATE TABLE items (id text PRIMARY KEY, n integer NOT NULL)' }];

describe('which statements are prepared', () => {
  it('names a text with parameters from its third run, the same name each time after', () => {
    const names = new PreparedNames(true);
    const sql = 'SELECT n FROM items WHERE id = $1';
    expect(names.nameOf(sql, ['a'])).toBeUndefined();
    expect(names.nameOf(sql, ['b'])).toBeUndefined();
    const name = names.nameOf(sql, ['c']);
    expect(name).toMatch(/^gw_[0-9a-f]{24}$/);
    expect(names.nameOf(sql, ['d'])).toBe(name);
    expect(names.nameOf('SELECT n FROM items WHERE id = $1 AND n > $2', ['a', 1])).toBeUndefined();
  });

  it('never names a text without parameters, with a * other than count(*), of over 4,096 characters, or when switched off', () => {
    const on = new PreparedNames(true);
    const off = new PreparedNames(false);
    for (let i = 0; i < 5; i++) {
      expect(on.nameOf('SELECT count(*) FROM items', [])).toBeUndefined();
      expect(on.nameOf('SELECT * FROM items WHERE id = $1', ['a'])).toBeUndefined();
      expect(on.nameOf('UPDATE items SET n = $2 WHERE id = $1 RETURNING *', ['a', 1])).toBeUndefined();
      expect(off.nameOf('SELECT n FROM items WHERE id = $1', ['a'])).toBeUndefined();
    }
    const long = `SELECT n FROM items WHERE id IN (${Array.from({ length: 700 }, (_, i) => `$${i + 1}`).join(', ')})`;
    for (let i = 0; i < 5; i++) expect(on.nameOf(long, ['a'])).toBeUndefined();
    expect(preparable('SELECT count(*)::int AS n FROM items WHERE n > $1')).toBe(true);
    expect(preparable('SELECT i.* FROM items i WHERE id = $1')).toBe(false);
  });

  it('runs a refused text unnamed from then on', () => {
    const names = new PreparedNames(true);
    const sql = 'SELECT n FROM items WHERE id = $1';
    for (let i = 0; i < 3; i++) names.nameOf(sql, ['a']);
    names.refuse(sql);
    expect(names.nameOf(sql, ['a'])).toBeUndefined();
  });
});

describe('prepared statements on PostgreSQL', () => {
  let tdb: TestDatabase;
  const open = (preparedStatements: boolean, schema: string): Promise<Db> =>
    openDb({ databaseUrl: tdb.databaseUrl, dataDir: '', schema, migrations, preparedStatements });
  /** The statements prepared on the connection of `q` (one transaction's). */
  const preparedOn = async (q: Queryable) => (await q.query<{ name: string }>('SELECT name FROM pg_prepared_statements ORDER BY name')).map((r) => r.name);

  beforeAll(async () => {
    const server = postgresServerUrl();
    if (!server) throw new Error('TEST_DATABASE_URL is not set: run the suite with `npm test`, which provides a PostgreSQL server');
    tdb = await createTestDatabase(server);
  });
  afterAll(() => tdb.drop());

  it('prepares a frequent statement once per connection, with the same answers, planned for each call', async () => {
    const db = await open(true, 'prepared_on');
    try {
      await db.query('INSERT INTO items (id, n) SELECT g::text, g FROM generate_series(1, 10) g');
      const seen = await db.tx(async (q) => {
        const answers: number[] = [];
        for (let i = 1; i <= 5; i++) answers.push((await q.query<{ n: number }>('SELECT n FROM items WHERE id = $1', [String(i)]))[0].n);
        expect(answers).toEqual([1, 2, 3, 4, 5]);
        // a * is never prepared, however often it runs
        for (let i = 0; i < 4; i++) expect(await q.query('SELECT * FROM items WHERE id = $1', ['1'])).toEqual([{ id: '1', n: 1 }]);
        expect(await q.query('SHOW plan_cache_mode')).toEqual([{ plan_cache_mode: 'force_custom_plan' }]);
        return preparedOn(q);
      });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatch(/^gw_/);
    } finally {
      await db.close();
    }
  });

  it('prepares nothing when switched off (DATABASE_PREPARED_STATEMENTS=false)', async () => {
    const db = await open(false, 'prepared_off');
    try {
      const seen = await db.tx(async (q) => {
        for (let i = 0; i < 5; i++) await q.query('SELECT n FROM items WHERE id = $1', ['1']);
        return preparedOn(q);
      });
      expect(seen).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it("keeps answering when another replica's migration changes a prepared statement's result (run again unnamed)", async () => {
    const db = await open(true, 'prepared_migrated');
    // a pool of one connection: the statement is prepared where it runs next
    try {
      await db.query("INSERT INTO items (id, n) VALUES ('a', 7)");
      const sql = 'SELECT n FROM items WHERE id = $1';
      for (let i = 0; i < 4; i++) await db.tx((q) => q.query(sql, ['a']));
      const other = await open(false, 'prepared_migrated');
      try {
        // a column gained elsewhere changes nothing for a list of columns; a changed type changes the result
        await other.exec('ALTER TABLE items ADD COLUMN note text');
        expect(await db.tx((q) => q.query(sql, ['a']))).toEqual([{ n: 7 }]);
        await other.exec('ALTER TABLE items ALTER COLUMN n TYPE bigint');
      } finally {
        await other.close();
      }
      // on every pooled connection that had it prepared: outside a transaction, answered unnamed
      const answers = await Promise.all(Array.from({ length: 12 }, () => db.query<{ n: string }>(sql, ['a'])));
      expect(answers.every((a) => a.length === 1 && String(a[0].n) === '7')).toBe(true);
      expect(await db.query(sql, ['a'])).toEqual([{ n: '7' }]);
    } finally {
      await db.close();
    }
  });
});
