/**
 * A failed statement as the rest of the code sees it: the SQLSTATE and which statement, never the values.
 * Driver errors carry the parameters (PGlite's `params`), and PostgreSQL's messages and details quote the
 * offending value (`invalid input syntax for type uuid: "<value>"`, `Key (id)=(<value>) already exists`);
 * they would end up in logs. The SQL text itself is parameterised, so its start names the statement safely.
 */
export class DbError extends Error {
  constructor(
    /** SQLSTATE, e.g. 23505 (unique violation), 22P02 (invalid text representation). */
    readonly code: string,
    /** The start of the SQL text, whitespace collapsed. */
    readonly statement: string,
  ) {
    super(`database error ${code} in ${statement}`);
    this.name = 'DbError';
  }
}

const statementOf = (sql: string) => {
  const s = sql.replace(/\s+/g, ' ').trim();
  return s.length > 80 ? `${s.slice(0, 80)}…` : s;
};

/** Runs one statement; a database error becomes a DbError (connection and other errors pass unchanged). */
export async function guarded<T>(sql: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) throw new DbError(code, statementOf(sql));
    throw e;
  }
}
