// Test helpers of the store, imported by tests as `@gateway/store/testing` (never by product code: lint forbids it).
export { storageBackends } from './storage-backends';
export type { StorageBackend } from './storage-backends';
export { seedPgliteTemplate } from './pglite-seed';
