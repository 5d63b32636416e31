// What the web app imports from /app/device.js: the SDK's device client, bundled for the browser,
// and the words for a link code that does not work, which `foxbell-server admin link approve`
// says too (from the server's share of the contract, bundled here, not added to the SDK's surface).
// The types are for app.js's JSDoc (web-app/tsconfig.json maps /app/device.js here): erased, they
// add nothing to the bundle, nor does RetryInfo bring in the SDK's main entry.

export type { RetryInfo } from '@foxbell/sdk';
export {
  FoxbellDevice,
  type InboxItem,
  inactiveInWords,
  type LinkRequest,
  type LinkRequestInput,
  type PushAddress,
} from '@foxbell/sdk/device';
export { linkApprovalInWords, minutesInWords } from '@foxbell/sdk/server-contract';
