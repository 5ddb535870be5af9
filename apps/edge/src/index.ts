export { startEdge } from './server';
export type { RunningEdge } from './server';
export type { RouteInfo } from './app';
export { readConfig } from './config';
export type { EdgeConfig } from './config';
// for the whole-stack tests (tools/e2e): what they check the running edge against
export { openApiPath } from './openapi/document';
export { SessionCookie } from './dashboard/session-cookie';
export { DOCS_CSP, SCALAR_VERSION } from './routes/reference';
// ...and what they derive every route's bodies from (tools/e2e/src/edge/testing/route-bodies.ts)
export { mountedRouters } from './app';
export { offlineApp } from './openapi/generate';
export { layerSpec } from './openapi/operation';
export type { SchemaDescription } from './input-bounds';
