/**
 * `@foxbell/sdk/server-contract`: the share of the rules only Foxbell's own server uses (its
 * messages, the link-code alphabet and an approval's words, APNs priorities, the request-body
 * walk). It lives beside the public rules so both sides still read one copy, and is published only
 * because the server imports it: no app imports it, it is not part of the SDK's surface, and it
 * changes in any release.
 */
export {
  ANY_SEND_TOKEN_PATTERN,
  BELL_HEX_PATTERN,
  type Checked,
  FIELD_SCHEMAS,
  IGNORED_BODY_FIELDS,
  isPlainObject,
  isSendFieldName,
  issueError,
  LEVEL_INPUTS,
  LEVEL_PUSH_PRIORITY,
  MESSAGE_ALIASES,
  nestingDepth,
  OPTIONAL_FIELDS,
  PATH_TOKEN_PATTERN,
  SEND_FIELD_NAMES,
  sameValue,
  textChecks,
} from './fields.js';
export {
  CLIENT_DEVICE_ID_PATTERN,
  canonicalLinkCode,
  LINK_CODE_ALPHABET,
  LINK_CODE_LENGTH,
  type LinkApprovalError,
  linkApprovalInWords,
  minutesInWords,
  shownLinkCode,
} from './link.js';
export {
  HANDLED_ACTIONS,
  type HandledAction,
  type ProgressStatus,
  parseTimestamp,
  progressOf,
  STATUS_PROGRESSION,
  statusAfter,
} from './records.js';
export { DEV_DEVICES, MESSAGES, nextUtcMonthStart } from './service.js';
