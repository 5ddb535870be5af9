import { openPostgres } from './postgres';
import { migrate } from './migrate';
import type { Db, Migration } from './types';

export interface OpenDbOptions {
  /** postgres://… ; unset means embedded PGlite under dataDir. */
  databaseUrl?: string;
  dataDir: string;
  /** The owning service's schema, e.g. "tenant_directory". */
  schema: string;
  migrations: Migration[];
  poolSize?: number;
  /** PostgreSQL only: frequent statements run as named prepared statements (`DATABASE_PREPARED_STATEMENTS`, default on). */
  preparedStatements?: boolean;
}

export async function openDb(opts: OpenDbOptions): Promise<Db> {
  if (!/^[a-z][a-z0-9_]*$/.test(opts.schema)) throw new Error(`invalid schema name ${opts.schema}`);
  const db = opts.databaseUrl
    ? await openPostgres(opts.databaseUrl, opts.schema, opts.poolSize ?? 10, opts.preparedStatements ?? true)
    : // PGlite (WebAssembly, ~20 MB once loaded) is loaded only by processes that embed it, never with DATABASE_URL
      await (await import('./pglite')).openPglite(opts.dataDir, opts.schema);
  try {
    await migrate(db, opts.migrations);
  } catch (e) {
    await db.close();
    throw e;
  }
  return db;
}

/** Unique-constraint violation (SQLSTATE 23505), the same on both backends. */
export function isUniqueViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: unknown }).code === '23505';
}
