/**
 * `@foxbell/server` as a library: the app without the process, and the stores. The process
 * itself is `foxbell-server` (src/server.ts).
 */

export { ApnsClient, type ApnsClientOptions, type PushResult } from './apns/client.js';
export { newProviderKeyPem, type ProviderKey } from './apns/provider-token.js';
export { type ApnsTopics, type PushRequest, pushRequestFor } from './apns/push-request.js';
export {
  ApnsSimulator,
  type ApnsSimulatorOptions,
  type ReceivedPush,
  type ScriptedAnswer,
} from './apns/simulator.js';
export { buildSimulatorControl } from './apns/simulator-control.js';
export { type AppDeps, buildApp } from './app.js';
export { type Clock, systemClock } from './clock.js';
export { DeliveryWorker, type DeliveryWorkerOptions } from './delivery/worker.js';
export { DEFAULT_LIMITS, type ServiceLimits } from './http/context.js';
export { type IdSource, randomIds } from './ids.js';
export { openApiDocument } from './openapi/document.js';
export { type DatabaseConfig, openStore } from './store/open.js';
export {
  DatabaseUnreachableError,
  openPostgresStore,
  type PostgresStoreOptions,
} from './store/postgres/open.js';
export { DataDirInUseError, openSqliteStore, type SqliteStoreOptions } from './store/sqlite/open.js';
export type { ClaimedDestination, Store } from './store/store.js';
