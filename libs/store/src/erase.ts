import type { Db } from './types';

/**
 * Erasure (a deleted tenant, issue 28): every row of the service's own tables that mentions one of `ids` (the
 * tenant's id and its clients' ids) anywhere, in any column (`row_to_json`), so a table added later is covered
 * without a change here. Rows another table's foreign key still points at are retried after the others are
 * gone, pass by pass. A full scan of each table: deleting a tenant is rare. Answers the rows removed.
 */
export async function eraseRowsMentioning(db: Db, ids: string[]): Promise<number> {
  const wanted = ids.filter((id) => /^[A-Za-z0-9_-]{8,}$/.test(id));
  if (!wanted.length) return 0;
  const tables = (
    await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'`,
      [db.schema],
    )
  ).map((t) => t.table_name);
  const patterns = wanted.map((id) => `%${id}%`);
  let removed = 0;
  let left = tables;
  for (let pass = 0; left.length && pass <= tables.length; pass++) {
    const failed: string[] = [];
    for (const t of left) {
      try {
        const rows = await db.query(`DELETE FROM "${db.schema}"."${t}" AS r WHERE row_to_json(r)::text LIKE ANY ($1::text[]) RETURNING 1`, [patterns]);
        removed += rows.length;
      } catch {
        failed.push(t); // still referenced: after the others
      }
    }
    if (failed.length === left.length) throw new Error(`could not erase rows of ${failed.join(', ')}`);
    left = failed;
  }
  return removed;
}
