/**
 * `@foxbell/sdk`: send notifications to a person's iPhone, Apple Watch and Vision Pro.
 * The one public entry point of the package; `@foxbell/sdk/contract` holds the field rules.
 */
export {
  type DevicesOptions,
  Foxbell,
  type FoxbellOptions,
  type MonthlyQuota,
  type PreparedSend,
  type RequestOptions,
  type SceneCatalog,
  type SendOptions,
  type SendResult,
  type WaitOptions,
  type WaitTarget,
} from './client.js';
export type {
  CatalogScene,
  Destination,
  DestinationState,
  Device,
  DropReason,
  ErrorCode,
  InactiveReason,
  Level,
  NotificationStatus,
  Platform,
  PushFailureReason,
  SendFields,
  StatusRecord,
} from './contract/index.js';
export {
  AbortError,
  ApiError,
  type Attempt,
  AuthenticationError,
  ConflictError,
  ConnectionError,
  type ConnectionReason,
  FoxbellError,
  InvalidRequestError,
  NotFoundError,
  PermissionError,
  QuotaExceededError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UndeliverableError,
  ValidationError,
} from './errors.js';
export type { RequestCall, RequestHooks } from './hooks.js';
export type { Logger, LogLevel } from './logging.js';
export { FoxbellPromise, type WithResponse } from './response-promise.js';
export type { RetryDecision, RetryInfo, RetryReason, StopReason } from './retry.js';
