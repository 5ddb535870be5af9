import { createHash } from 'node:crypto';

/** A text is prepared once it has been run this many times: a group commit's rare batch sizes stay unnamed. */
const SEEN_BEFORE_NAMED = 3;
/** At most this many texts are named per process (each one parsed and kept by every pooled connection). */
const MAX_NAMED = 256;
/** Texts counted before they are named, at most this many (a process running ever new texts forgets them). */
const MAX_COUNTED = 4096;
/**
 * Longer texts stay unnamed: a group commit's VALUES list of many rows is a large parse tree for every connection
 * to keep, and its parse is a small part of a statement of many rows anyway.
 */
const MAX_TEXT_LENGTH = 4096;

/**
 * Which statement texts run as named prepared statements (`pg`'s `{ name, text, values }`): parsed once per
 * connection and bound each time after, where an unnamed statement is parsed, analysed and rewritten on every
 * call. Measured on PostgreSQL 15 (this machine, one connection, the contact lookup and UPDATE of a send): the
 * server's CPU per statement 122–184 µs unnamed, 72 µs named (planned for each call's values, as unnamed ones
 * are: `plan_cache_mode = force_custom_plan` on the connections, so no query's plan changes).
 *
 * Named: texts with parameters of at most 4,096 characters, run at least `SEEN_BEFORE_NAMED` times, up to `MAX_NAMED` of them; never a text
 * with a `*` other than `count(*)`: a prepared `SELECT *` (or `RETURNING *`) fails with "cached plan must not
 * change result type" once another replica's migration adds a column to its table, where a list of columns
 * does not change. A text that fails so anyway is never named again in this process.
 */
export class PreparedNames {
  private readonly named = new Map<string, string>();
  private readonly seen = new Map<string, number>();
  private readonly refused = new Set<string>();

  constructor(private readonly enabled: boolean) {}

  /** The name to run `text` under, or undefined to run it unnamed. */
  nameOf(text: string, params: readonly unknown[] | undefined): string | undefined {
    if (!this.enabled || !params?.length || text.length > MAX_TEXT_LENGTH) return undefined;
    const name = this.named.get(text);
    if (name !== undefined || this.named.size >= MAX_NAMED || this.refused.has(text)) return name;
    const n = (this.seen.get(text) ?? 0) + 1;
    if (n < SEEN_BEFORE_NAMED) {
      if (this.seen.size >= MAX_COUNTED) this.seen.clear();
      this.seen.set(text, n);
      return undefined;
    }
    this.seen.delete(text);
    if (!preparable(text)) {
      this.refused.add(text);
      return undefined;
    }
    const fresh = `gw_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    this.named.set(text, fresh);
    return fresh;
  }

  /** A named text failed as only a prepared one can: it runs unnamed from now on. */
  refuse(text: string): void {
    this.named.delete(text);
    this.refused.add(text);
  }
}

/** No `*` but `count(*)`: a list of columns keeps its result type when a table gains a column. */
export function preparable(text: string): boolean {
  return !text.replace(/count\(\s*\*\s*\)/gi, '').includes('*');
}

/**
 * The errors of a prepared statement that its text run unnamed would not have: its cached plan's result changed
 * under a migration (0A000), or the server no longer has it (26000: a pooler between, or a reset session).
 */
export function isPreparedStatementError(e: unknown): boolean {
  const err = e as { code?: string; message?: string };
  return (err?.code === '0A000' && /cached plan must not change result type/.test(err.message ?? '')) || err?.code === '26000';
}
