/**
 * `@foxbell/sdk/contract`: the field rules, limits, codes and shapes of the Foxbell interface.
 * The SDK checks sends with it before they leave and the server checks them with it on arrival,
 * so the two can never disagree about a rule. zod and constants only: no I/O, no Node modules.
 */
export { ERROR_CODES, type ErrorBody, type ErrorCode, isErrorCode, statusOf } from './errors.js';
export {
  type CheckedSend,
  checkSend,
  type FieldError,
  IDEMPOTENCY_KEY_PATTERN,
  type IssuePlace,
  type LevelInput,
  levelOf,
  type Notification,
  SEND_TOKEN_PATTERN,
  type SendFieldName,
  type SendFields,
  type SendValidation,
  TAG_PATTERN,
  textProblem,
  urlProblem,
  utf8Length,
  type ValidateOptions,
  validateSend,
} from './fields.js';
export { seenInWords } from './freshness.js';
export {
  INACTIVE_REASONS,
  type InactiveReason,
  type InWords,
  inactiveInWords,
  PUSH_FAILURE_REASONS,
  type PushFailureReason,
  pushFailureInWords,
} from './push-failures.js';
export {
  catalogSceneSchema,
  DESTINATION_STATES,
  type Destination,
  type DestinationState,
  type Device,
  DROP_REASONS,
  type DropReason,
  destinationSchema,
  deviceListSchema,
  deviceSchema,
  errorBodySchema,
  NOTIFICATION_ID_PATTERN,
  NOTIFICATION_STATUSES,
  type NotificationStatus,
  PLATFORMS,
  type Platform,
  REQUEST_ID_PATTERN,
  type SendResponse,
  type StatusRecord,
  sendResponseSchema,
  statusRecordSchema,
  TIMESTAMP_PATTERN,
  UNREACHED_STATES,
  willNotArrive,
} from './records.js';
export {
  type CatalogScene,
  DEFAULT_SCENE,
  findSceneVersion,
  isKnownScene,
  SCENE_ID_PATTERN,
  SCENES,
  type SceneDefinition,
  type SceneId,
  type SceneVersion,
  sceneCatalog,
} from './scenes.js';
export { devicesForTarget, PLATFORM_TARGETS, type Routable } from './service.js';
export { integerOrText, paramFromText, paramTypesOf } from './text-values.js';
export {
  BELL_COLOR_NAMES,
  FIELD_DEFAULTS,
  LEVELS,
  type Level,
  LIMITS,
  SERVICE_LIMITS,
  SOUNDS,
  TARGET_KEYWORDS,
} from './values.js';
