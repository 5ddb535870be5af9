import { Pool, type PoolClient } from 'pg';
import { guarded } from './db-error';
import { isPreparedStatementError, PreparedNames } from './prepared';
import type { Db, Queryable, Row } from './types';

/**
 * `prepared`: run a service's frequent statements as named prepared statements (`PreparedNames`); off where a
 * pooler in transaction mode sits between (PgBouncer before 1.21 loses them between transactions).
 */
export async function openPostgres(databaseUrl: string, schema: string, poolSize: number, prepared = true): Promise<Db> {
  const names = new PreparedNames(prepared);
  const pool = new Pool({
    connectionString: databaseUrl,
    max: poolSize,
    // every connection of this service sees only its own schema; a prepared statement is planned for each call's
    // values as an unnamed one is (its parse is what is saved), so no query's plan depends on being prepared.
    // PostgreSQL's default (`auto`: one generic plan from the sixth call when it costs no more) was measured on
    // 2026-11-30: it keeps a plan made while a table was nearly empty, and the dispatcher's read of delivery records
    // by id went from 0.23 to 5.2 ms a call in the bench (reproduced by hand: a generic plan made at 20 rows stays a
    // sequential scan at 60,000, 18 ms a call, until the next ANALYZE). Planning is nearly 40 % of the send path's
    // server time, but not worth that risk
    options: `-c search_path=${schema}${prepared ? ' -c plan_cache_mode=force_custom_plan' : ''}`,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 5_000,
  });
  pool.on('error', () => {
    /* idle client errors surface on the next query; the pool replaces the client */
  });
  const run = <T>(q: Pool | PoolClient, sql: string, params?: unknown[]) =>
    guarded(sql, async () => {
      const name = names.nameOf(sql, params);
      if (name === undefined) return (await q.query(sql, params as unknown[])).rows as T[];
      try {
        return (await q.query({ name, text: sql, values: params as unknown[] })).rows as T[];
      } catch (e) {
        if (!isPreparedStatementError(e)) throw e;
        names.refuse(sql);
        // outside a transaction the statement runs again unnamed; inside, the transaction is spoilt: its caller sees
        // the error as any other failed transaction (the text is unnamed from now on)
        if (q !== pool) throw e;
        return (await q.query(sql, params as unknown[])).rows as T[];
      }
    });
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
