/**
 * What `pnpm start` needs of the server without loading it: the settings' defaults and the dev
 * session `--dev` saves. Nothing here opens a store or loads the APNs client.
 */
export { SERVER_SETTINGS } from '../config/server-settings.js';
export { type DevSession, devSessionFile, readDevSession } from './session.js';
