import { createTestDatabase, postgresServerUrl, tempDir } from './database';

export interface DbTarget {
  /** Set for PostgreSQL; undefined means embedded PGlite under dataDir. */
  databaseUrl?: string;
  dataDir: string;
  cleanup(): Promise<void>;
}

/**
 * Storage for a test stack: a fresh PostgreSQL database when `npm test` provides a server
 * (TEST_DATABASE_URL), else embedded PGlite in a temp dir. `force` picks one explicitly.
 */
export async function dbTarget(force?: 'pglite' | 'postgres'): Promise<DbTarget> {
  const dir = tempDir('gw-data-');
  const server = postgresServerUrl();
  const usePg = force === 'postgres' || (force === undefined && server !== undefined);
  if (!usePg) return { dataDir: dir.path, cleanup: async () => dir.remove() };
  if (!server) throw new Error('TEST_DATABASE_URL is not set: run the suite with `npm test`, which provides a PostgreSQL server');
  const db = await createTestDatabase(server);
  return {
    databaseUrl: db.databaseUrl,
    dataDir: dir.path,
    cleanup: async () => {
      await db.drop();
      dir.remove();
    },
  };
}
