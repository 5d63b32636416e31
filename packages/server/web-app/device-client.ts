// What the web app imports from /app/device.js: the SDK's device client, bundled for the browser,
// and the words for a link code that does not work, which `foxbell-server admin link approve`
// says too (from the server's share of the contract, bundled here, not added to the SDK's surface).
export { FoxbellDevice, inactiveInWords } from '@foxbell/sdk/device';
export { linkApprovalInWords, minutesInWords } from '@foxbell/sdk/server-contract';
