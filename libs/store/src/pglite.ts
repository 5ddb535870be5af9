import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Db, Queryable, Row } from './types';

/** Embedded PostgreSQL (WASM) under DATA_DIR/<schema>: the zero-install default. */
export async function openPglite(dataDir: string, schema: string): Promise<Db> {
  const dir = resolve(join(dataDir, schema));
  mkdirSync(dir, { recursive: true });
  const pg = await PGlite.create(dir);
  await pg.exec(`CREATE SCHEMA IF NOT EXISTS "${schema}"; SET search_path TO "${schema}";`);
  let closed = false;
  return {
    kind: 'pglite',
    schema,
    query: async <T = Row>(sql: string, params?: unknown[]) => (await pg.query<T>(sql, params)).rows,
    exec: async (sql: string) => {
      await pg.exec(sql);
    },
    tx: <T>(fn: (q: Queryable) => Promise<T>) =>
      pg.transaction(async (t) =>
        fn({
          query: async <R = Row>(sql: string, params?: unknown[]) => (await t.query<R>(sql, params)).rows,
          exec: async (sql: string) => {
            await t.exec(sql);
          },
        }),
      ),
    async ping() {
      await pg.query('SELECT 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      // flush every dirty page to disk before the instance goes away
      await pg.syncToFs();
      await pg.close();
    },
  };
}
