import { AppError } from '@gateway/errors';

/**
 * Keyset paging over `(created_at, id)`, newest first. A position is a row's created_at to the microsecond and
 * its id: a JS Date holds milliseconds only, so a position read through one would sit up to 999 µs before its
 * row, and rows created within that millisecond would be skipped at a page boundary.
 */
export interface ListPosition {
  /** created_at as ISO 8601 text with microseconds (`2026-11-23T17:09:35.216123Z`). */
  at: string;
  id: string;
}

/** Selects a row's created_at as ListPosition.at: `SELECT *, ${POSITION_AT} AS position_at ...`. */
export const POSITION_AT = `to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** The cursor text of a position (opaque to callers: the edge seals it again). */
export function encodePosition(p: ListPosition): string {
  return Buffer.from(`${p.at}|${p.id}`).toString('base64url');
}

/**
 * The position a cursor of encodePosition names; anything that was never issued is a 422 naming `cursor`. A
 * position is a real instant after 1970 (it reads back the same to the millisecond, so no 31 February reaches
 * PostgreSQL, which would refuse it) and an id of the caller's form. Millisecond positions (cursors issued
 * before positions kept microseconds) are still read.
 */
export function decodePosition(cursor: string, idForm: RegExp): ListPosition {
  const [at = '', id = '', ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3})(\d{3})?Z$/.exec(at);
  const instant = m ? new Date(`${m[1]}Z`) : undefined;
  const real = instant !== undefined && !Number.isNaN(instant.getTime()) && instant.toISOString().slice(0, 23) === m![1] && instant.getUTCFullYear() >= 1970;
  if (rest.length === 0 && real && idForm.test(id)) return { at, id };
  throw AppError.invalidCursor(cursor);
}

/** The page size a list request asks for: its `limit`, 1 to 100, and 20 when it gives none (0). */
export function pageSize(limit: number): number {
  return Math.min(Math.max(limit || 20, 1), 100);
}

/**
 * A page read as `size + 1` rows (one more than it shows, to learn whether another follows): the rows it
 * shows, and the cursor of the last of them when another page follows.
 */
export function takePage<T>(rows: T[], size: number, cursorOf: (last: T) => string): { page: T[]; nextCursor?: string } {
  const page = rows.slice(0, size);
  return { page, nextCursor: rows.length > size && page.length > 0 ? cursorOf(page[page.length - 1]) : undefined };
}
