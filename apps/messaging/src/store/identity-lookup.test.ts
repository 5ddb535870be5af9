import { storageBackends } from '@gateway/store/testing';
import type { Db } from '@gateway/store';
import { migrations } from './migrations';
import { IDENTITIES_OF } from './conversations';

/** How many rows of `contact_identities` a statement's plan read, by EXPLAIN ANALYZE. */
async function identityRowsRead(db: Db, sql: string, params: unknown[]): Promise<number> {
  const [row] = await db.query<Record<string, unknown>>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
  const cell = Object.values(row)[0];
  const plan = (typeof cell === 'string' ? JSON.parse(cell) : cell) as Array<{ Plan: PlanNode }>;
  let read = 0;
  const walk = (node: PlanNode) => {
    if (node['Relation Name'] === 'contact_identities') read += node['Actual Rows'] * node['Actual Loops'];
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(plan[0].Plan);
  return read;
}
interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  Plans?: PlanNode[];
}

describe.each(storageBackends('messaging', migrations))('contact identity lookup on %s', (_name, make) => {
  const backend = make();
  let db: Db;
  beforeAll(async () => {
    db = await backend.open();
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });

  it('reads only the identities it asks for, even by statistics gathered before the client grew', async () => {
    // no analysis behind the test's back: the statistics stay those of the first 500 clients
    await db.query('ALTER TABLE contact_identities SET (autovacuum_enabled = false)');
    await db.query(
      `INSERT INTO contact_identities (client_id, kind, value, contact_id)
       SELECT 'small-' || i, 'wa_id', (16505550000 + i)::text, 'contact-small-' || i FROM generate_series(1, 500) i`,
    );
    await db.query('ANALYZE contact_identities');
    await db.query(
      `INSERT INTO contact_identities (client_id, kind, value, contact_id)
       SELECT 'big', 'wa_id', (16505550000 + i)::text, 'contact-big-' || i FROM generate_series(1, 10000) i`,
    );
    const asked = ['big', ['wa_id', 'wa_id', 'user_id'], ['16505550005', '16505559999', 'US.404']];

    // the trap is set: the lookup as it was written walked all of the client's identities under these statistics
    const asItWas = `SELECT kind, value, contact_id FROM contact_identities WHERE client_id = $1 AND (kind, value) IN (SELECT k, v FROM unnest($2::text[], $3::text[]) AS t(k, v))`;
    expect(await identityRowsRead(db, asItWas, asked)).toBeGreaterThanOrEqual(10000);

    // one probe per pair asked (EXPLAIN gives a probe's rows as the mean over its loops, rounded: 2 of 3 is 3)
    expect(await identityRowsRead(db, IDENTITIES_OF, asked)).toBeLessThanOrEqual(3);
    const found = await db.query<{ kind: string; value: string; contact_id: string }>(IDENTITIES_OF, asked);
    expect(found.map((f) => [f.kind, f.value, f.contact_id]).sort()).toEqual([
      ['wa_id', '16505550005', 'contact-big-5'],
      ['wa_id', '16505559999', 'contact-big-9999'],
    ]);
  });
});
