import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/**
 * The PostgreSQL server the tests may use: TEST_DATABASE_URL (set by `npm test` once it made sure a server
 * runs). Every stack gets a database of its own, dropped afterwards.
 */
export function postgresServerUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}

export interface TestDatabase {
  databaseUrl: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(serverUrl: string): Promise<TestDatabase> {
  const name = `gwtest_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    async drop() {
      const c = new Client({ connectionString: serverUrl });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

export interface TempDir {
  path: string;
  remove(): void;
}

export function tempDir(prefix = 'gw-'): TempDir {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
