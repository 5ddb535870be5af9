import { Pool, type PoolClient } from 'pg';
import { guarded } from './db-error';
import type { Db, Queryable, Row } from './types';

export async function openPostgres(databaseUrl: string, schema: string, poolSize: number): Promise<Db> {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: poolSize,
    // every connection of this service sees only its own schema
    options: `-c search_path=${schema}`,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  pool.on('error', () => {
    /* idle client errors surface on the next query; the pool replaces the client */
  });
  const run = <T>(q: Pool | PoolClient, sql: string, params?: unknown[]) => guarded(sql, async () => (await q.query(sql, params as unknown[])).rows as T[]);
  return {
    kind: 'postgres',
    schema,
    query: <T = Row>(sql: string, params?: unknown[]) => run<T>(pool, sql, params),
    exec: async (sql: string) => {
      await guarded(sql, () => pool.query(sql));
    },
    async tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn({
          query: <R = Row>(sql: string, params?: unknown[]) => run<R>(client, sql, params),
          exec: async (sql: string) => {
            await guarded(sql, () => client.query(sql));
          },
        });
        await guarded('COMMIT', () => client.query('COMMIT'));
        return result;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      } finally {
        client.release();
      }
    },
    async ping() {
      await pool.query('SELECT 1');
    },
    close: () => pool.end(),
  };
}
