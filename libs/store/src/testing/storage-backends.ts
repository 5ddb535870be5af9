import { createTestDatabase, postgresServerUrl, tempDir, type TestDatabase } from '@gateway/testing';
import { openDb } from '../open';
import type { Db, Migration } from '../types';
import { seedPgliteTemplate } from './pglite-seed';

/** One storage backend a store test runs against: opened once per suite, removed after it. */
export interface StorageBackend {
  open(): Promise<Db>;
  cleanup(): Promise<void>;
}

/**
 * The storage backends every store runs on, for `describe.each`: embedded PGlite in a temp dir, and a fresh
 * database on the PostgreSQL server `npm test` provides (TEST_DATABASE_URL; without it the postgres suite fails).
 */
export function storageBackends(schema: string, migrations: Migration[], opts: { poolSize?: number } = {}): Array<[string, () => StorageBackend]> {
  const pglite = (): StorageBackend => {
    const dir = tempDir(`gw-${schema}-`);
    return {
      open: async () => {
        seedPgliteTemplate(dir.path);
        return openDb({ dataDir: dir.path, schema, migrations });
      },
      cleanup: async () => dir.remove(),
    };
  };
  const postgres = (): StorageBackend => {
    let tdb: TestDatabase | undefined;
    return {
      async open() {
        const server = postgresServerUrl();
        if (!server) throw new Error('TEST_DATABASE_URL is not set: run the suite with `npm test`, which provides a PostgreSQL server');
        tdb ??= await createTestDatabase(server);
        return openDb({ databaseUrl: tdb.databaseUrl, dataDir: '', schema, migrations, poolSize: opts.poolSize });
      },
      cleanup: async () => tdb?.drop(),
    };
  };
  return [
    ['pglite', pglite],
    ['postgres', postgres],
  ];
}
