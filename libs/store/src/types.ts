export type Row = Record<string, unknown>;

export interface Queryable {
  query<T = Row>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** A service's own database: its own schema (PostgreSQL) or its own embedded instance (PGlite). */
export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  readonly schema: string;
  /** Runs fn in one transaction; rolled back when fn throws. */
  tx<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}
