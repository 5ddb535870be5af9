import type { Db, Migration, Queryable } from './types';

/**
 * Applies pending migrations in version order, each in its own transaction together with its row in
 * schema_migrations. On PostgreSQL an advisory lock keeps concurrently starting replicas from racing.
 */
export async function migrate(db: Db, migrations: Migration[]): Promise<number[]> {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  const versions = new Set<number>();
  for (const m of sorted) {
    if (versions.has(m.version)) throw new Error(`duplicate migration version ${m.version}`);
    versions.add(m.version);
  }
  const lock = async (q: Queryable) => {
    // replicas of a service start together: one migrates at a time (CREATE ... IF NOT EXISTS races otherwise)
    if (db.kind === 'postgres') await q.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`migrate:${db.schema}`]);
  };
  await db.tx(async (q) => {
    await lock(q);
    await q.query(`CREATE SCHEMA IF NOT EXISTS "${db.schema}"`);
    await q.query(`CREATE TABLE IF NOT EXISTS "${db.schema}".schema_migrations (
    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
  });
  const applied: number[] = [];
  for (const m of sorted) {
    const done = await db.tx(async (q) => {
      await lock(q);
      const rows = await q.query(`SELECT 1 FROM "${db.schema}".schema_migrations WHERE version = $1`, [m.version]);
      if (rows.length) return false;
      await q.exec(m.sql);
      await q.query(`INSERT INTO "${db.schema}".schema_migrations (version, name) VALUES ($1, $2)`, [m.version, m.name]);
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}
