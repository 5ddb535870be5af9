export { openDb, isUniqueViolation } from './open';
export type { OpenDbOptions } from './open';
export { migrate } from './migrate';
export type { Db, Queryable, Row, Migration } from './types';
export { GroupCommit } from './group-commit';
export { DbError } from './db-error';
export { POSITION_AT, encodePosition, decodePosition, pageSize, takePage } from './list-position';
export type { ListPosition } from './list-position';
export { eraseRowsMentioning } from './erase';
