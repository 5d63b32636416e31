// What the web app imports from /app/device.js: the SDK's device client, bundled for the browser.
export { FoxbellDevice, inactiveInWords } from '@foxbell/sdk/device';
