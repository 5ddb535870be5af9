import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { guarded } from './db-error';
import { initPgliteDataDir } from './pglite-template';
import type { Db, Queryable, Row } from './types';

/**
 * Small memory settings, added to PGlite's own configuration: one service's data is small and every service
 * runs its own instance, so 128 MB of shared buffers (PostgreSQL's default) per process would be waste.
 */
const POSTGRESQL_CONF = ['shared_buffers=16MB', 'wal_buffers=1MB', 'work_mem=2MB', 'maintenance_work_mem=8MB', 'temp_buffers=2MB'];

/** Embedded PostgreSQL (WASM) under DATA_DIR/<schema>: the zero-install default. */
export async function openPglite(dataDir: string, schema: string): Promise<Db> {
  const dir = resolve(join(dataDir, schema));
  mkdirSync(dir, { recursive: true });
  initPgliteDataDir(dir);
  const pg = await PGlite.create(dir, { postgresqlconf: POSTGRESQL_CONF });
  await pg.exec(`CREATE SCHEMA IF NOT EXISTS "${schema}"; SET search_path TO "${schema}";`);
  let closed = false;
  return {
    kind: 'pglite',
    schema,
    query: <T = Row>(sql: string, params?: unknown[]) => guarded(sql, async () => (await pg.query<T>(sql, params)).rows),
    exec: async (sql: string) => {
      await pg.exec(sql);
    },
    tx: <T>(fn: (q: Queryable) => Promise<T>) =>
      pg.transaction(async (t) =>
        fn({
          query: <R = Row>(sql: string, params?: unknown[]) => guarded(sql, async () => (await t.query<R>(sql, params)).rows),
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
