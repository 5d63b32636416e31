/**
 * `@foxbell/server` as a library: the app without the process, and the stores. The process
 * itself is `foxbell-server` (src/server.ts).
 */
export { type AppDeps, buildApp } from './app.js';
export type { Clock } from './clock.js';
export { DEFAULT_LIMITS, type ServiceLimits } from './http/context.js';
export type { IdSource } from './ids.js';
export { openSqliteStore, type SqliteStoreOptions } from './store/sqlite.js';
export type { Store } from './store/store.js';
