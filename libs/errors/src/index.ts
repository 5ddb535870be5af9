export { AppError, isAppError, toAppError } from './app-error';
export type { ErrorKind, ValidationIssue, ProviderErrorInfo, AppErrorOptions } from './app-error';
export { issuesFrom } from './schema-issues';
export type { SchemaErrorItem } from './schema-issues';
