/**
 * `@foxbell/server` as a library: the app without the process, the stores and the delivery
 * worker. The processes are `foxbell-server` (src/main/) and `foxbell-apns-sim`; the APNs
 * simulator is `@foxbell/server/simulator` (src/simulator/), apart from the product.
 */

export { type AppDeps, buildApp } from './app.js';
export { ApnsClient, type ApnsClientOptions, type PushResult } from './delivery/apns/client.js';
export { newProviderKeyPem, type ProviderKey } from './delivery/apns/provider-token.js';
export { type ApnsTopics, type PushRequest, pushRequestFor } from './delivery/apns/push-request.js';
export { ApnsTransport } from './delivery/apns/transport.js';
export type {
  KeyKeeper,
  ProviderContext,
  ProviderEntry,
  ProviderMaker,
  PushProvider,
  Registration,
  StandIn,
} from './delivery/provider.js';
export {
  defaultProviderConfigs,
  describedProviders,
  loadProviders,
  type MakingContext,
  makeProviders,
  PROVIDERS,
  type ProviderConfigs,
  type ProviderRegistry,
} from './delivery/providers.js';
export type { PushDestination, PushOutcome, PushTransport } from './delivery/transport.js';
export { type PushHosts, parsePushHosts } from './delivery/web-push/hosts.js';
export type { WebPushKeys } from './delivery/web-push/keys.js';
export { webPushPayload } from './delivery/web-push/payload.js';
export { type WebPushOptions, WebPushTransport } from './delivery/web-push/transport.js';
export { VapidKeySource, type VapidKeys } from './delivery/web-push/vapid.js';
export { DeliveryWorker, type DeliveryWorkerOptions } from './delivery/worker.js';
export { type Clock, systemClock } from './kernel/clock.js';
export { type IdSource, randomIds } from './kernel/ids.js';
export { DEFAULT_LIMITS, type ServiceLimits } from './kernel/limits.js';
export type { ClaimedDestination } from './model/leases.js';
export { type DatabaseConfig, openStore } from './store/open.js';
export {
  DatabaseUnreachableError,
  openPostgresStore,
  type PostgresStoreOptions,
} from './store/postgres/open.js';
export { DataDirInUseError, openSqliteStore, type SqliteStoreOptions } from './store/sqlite/open.js';
export type { Store } from './store/store.js';
