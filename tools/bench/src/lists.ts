import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { Client } from 'pg';
import { conversationsMigrations, SqlConversations } from '@gateway/app-messaging';
import { encodePosition, openDb, type Queryable } from '@gateway/store';
import { fmt, quantile, table } from './report';

/**
 * The `lists` row of `npm run bench` (issue 27), production configuration: the messaging service's own schema on a
 * fresh PostgreSQL database, loaded through its store (bulk SQL on the store's connection, not the API) with
 * LIST_MESSAGES messages and LIST_CONTACTS contacts of one client, then each list the API serves timed as the
 * messaging service runs it (SqlConversations): p50 and p99 of ITERATIONS runs, and the query plan of each.
 */
const MESSAGES = Number(process.env.BENCH_LIST_MESSAGES ?? 1_000_000);
const CONTACTS = Number(process.env.BENCH_LIST_CONTACTS ?? 50_000);
const ITERATIONS = Number(process.env.BENCH_LIST_ITERATIONS ?? 300);
const GOAL_MS = 50;
const TENANT = '6f1b1f3e-0000-4000-8000-000000000001';
const CLIENT = '6f1b1f3e-0000-4000-8000-000000000002';

export interface ListTiming {
  what: string;
  p50: number;
  p99: number;
  plan: string;
}

export interface ListsResult {
  messages: number;
  contacts: number;
  loadSeconds: number;
  timings: ListTiming[];
}

/** A Queryable that remembers the first statements since `calls` was emptied, so their plans can be asked for. */
class Recording implements Queryable {
  calls: Array<{ sql: string; params: unknown[] }> = [];
  constructor(private readonly q: Queryable) {}
  query<T>(sql: string, params: unknown[] = []): Promise<T[]> {
    if (this.calls.length < 10) this.calls.push({ sql, params });
    return this.q.query<T>(sql, params);
  }
  exec(sql: string): Promise<void> {
    return this.q.exec(sql);
  }
}

async function admin(adminUrl: string, sql: string): Promise<void> {
  const c = new Client({ connectionString: adminUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function listsBench(adminUrl: string, log: (m: string) => void): Promise<ListsResult> {
  const name = `gw_bench_lists_${randomBytes(5).toString('hex')}`;
  await admin(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDb({ databaseUrl: url.toString(), dataDir: tmpdir(), schema: 'messaging', migrations: conversationsMigrations });
  try {
    const t0 = performance.now();
    log(`lists: loading ${fmt(CONTACTS)} contacts and ${fmt(MESSAGES)} messages`);
    // contact i: wa_id 1650000000i; message j is with contact j % CONTACTS, one a second going back from now,
    // every other one inbound; outbound ones delivered, read or (1 in 20) failed
    await db.query(
      `INSERT INTO contacts (id, tenant_id, client_id, wa_id, profile_name, first_seen_at, last_seen_at, last_inbound_at, last_activity_at, last_message_id, created_at)
       SELECT 'c' || i, $1, $2, (16500000000 + i)::text, 'User ' || i, now() - interval '30 days', now() - (i || ' seconds')::interval,
         now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval, 'wamid.bench.' || i, now() - interval '30 days'
       FROM generate_series(0, $3::int - 1) AS i`,
      [TENANT, CLIENT, CONTACTS],
    );
    await db.query(
      `INSERT INTO contact_identities (client_id, kind, value, contact_id) SELECT $1, 'wa_id', (16500000000 + i)::text, 'c' || i FROM generate_series(0, $2::int - 1) AS i`,
      [CLIENT, CONTACTS],
    );
    const step = 100_000;
    for (let from = 0; from < MESSAGES; from += step) {
      await db.query(
        `INSERT INTO messages (id, tenant_id, client_id, to_number, kind, status, status_history, created_at, updated_at, direction, contact_id, from_id, text_body)
         SELECT 'wamid.bench.' || j, $1, $2, CASE WHEN j % 2 = 0 THEN '15550001111' ELSE '+' || (16500000000 + j % $3) END,
           CASE WHEN j % 7 = 0 THEN 'image' ELSE 'text' END,
           CASE WHEN j % 2 = 0 THEN 'received' WHEN j % 20 = 1 THEN 'failed' WHEN j % 4 = 1 THEN 'read' ELSE 'delivered' END,
           '[]'::jsonb, now() - (j || ' seconds')::interval, now() - (j || ' seconds')::interval,
           CASE WHEN j % 2 = 0 THEN 'in' ELSE 'out' END, 'c' || (j % $3), (16500000000 + j % $3)::text,
           'message ' || j || CASE WHEN j % 1000 = 0 THEN ' parcel refund' ELSE ' hello there' END
         FROM generate_series($4::int, $5::int) AS j`,
        [TENANT, CLIENT, CONTACTS, from, Math.min(from + step, MESSAGES) - 1],
      );
    }
    await db.exec('ANALYZE');
    const loadSeconds = (performance.now() - t0) / 1000;
    log(`lists: loaded in ${fmt(loadSeconds, 1)} s; measuring`);

    const rec = new Recording(db);
    const store = new SqlConversations(rec, 'postgres');
    const deep = Math.floor(MESSAGES / 2);
    const deepRow = (
      await db.query<{ at: string; id: string }>(
        `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, id FROM messages WHERE client_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1`,
        [CLIENT, deep],
      )
    )[0];
    const deepCursor = encodePosition(deepRow);
    const busy = `c${CONTACTS - 1}`;
    const cases: Array<[string, () => Promise<unknown>]> = [
      ['message log, first page (50)', () => store.listMessages(TENANT, CLIENT, { limit: 50 })],
      ['message log, filtered: direction=out&status=failed (50)', () => store.listMessages(TENANT, CLIENT, { direction: 'out', status: 'failed', limit: 50 })],
      [`message log, deep page via cursor (row ${fmt(deep)}, 50)`, () => store.listMessages(TENANT, CLIENT, { limit: 50, cursor: deepCursor })],
      ['message log, text search q=refund (50)', () => store.listMessages(TENANT, CLIENT, { q: 'refund', limit: 50 })],
      ['contacts list (20, with opted-out)', () => store.listContacts(TENANT, CLIENT, { limit: 20 })],
      ['conversations list (20)', () => store.listConversations(TENANT, CLIENT, { limit: 20 })],
      ['a thread (50)', () => store.thread(TENANT, CLIENT, busy, { limit: 50 })],
      // GET /api/stats (the Overview's charts): every message of the client lies in the 14 days
      [`counts per day, 14 days (${fmt(MESSAGES)} messages)`, () => store.countByDay(TENANT, CLIENT, day(Date.now() - 13 * 86_400_000), day(Date.now()))],
    ];
    const timings: ListTiming[] = [];
    for (const [what, run] of cases) {
      for (let i = 0; i < 20; i++) await run();
      const times: number[] = [];
      for (let i = 0; i < ITERATIONS; i++) {
        const s = performance.now();
        await run();
        times.push(performance.now() - s);
      }
      // the plan of the list's main statement (the first it runs)
      rec.calls = [];
      await run();
      const main = rec.calls[0];
      const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${main.sql}`, main.params)).map((r) => r['QUERY PLAN']).join('\n');
      times.sort((a, b) => a - b);
      timings.push({ what, p50: quantile(times, 0.5), p99: quantile(times, 0.99), plan });
      log(`lists: ${what}: p50 ${fmt(quantile(times, 0.5), 2)} ms, p99 ${fmt(quantile(times, 0.99), 2)} ms`);
    }
    return { messages: MESSAGES, contacts: CONTACTS, loadSeconds, timings };
  } finally {
    await db.close();
    await admin(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

/** The lists table and the plans, for the report. */
export function listsReport(r: ListsResult): string {
  const rows = r.timings.map((t) => [t.what, `${fmt(t.p50, 2)} ms`, `**${fmt(t.p99, 2)} ms**`, t.p99 <= GOAL_MS ? 'yes' : 'no']);
  const plans = r.timings.map((t) => `${t.what}:\n\n\`\`\`\n${t.plan}\n\`\`\``).join('\n\n');
  return [
    `Lists (production, ${fmt(r.messages)} messages and ${fmt(r.contacts)} contacts of one client, loaded in ${fmt(r.loadSeconds, 0)} s; ${fmt(ITERATIONS)} runs each, through the messaging store):\n`,
    table(['List', 'p50', 'p99', `p99 ≤ ${GOAL_MS} ms`], rows),
    `\nQuery plans:\n\n${plans}`,
  ].join('\n');
}
