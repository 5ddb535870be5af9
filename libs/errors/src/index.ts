export { AppError, isAppError, toAppError } from './app-error';
export type { ErrorKind, ValidationIssue, ProviderErrorInfo, AppErrorOptions } from './app-error';
