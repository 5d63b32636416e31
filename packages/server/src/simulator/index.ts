/**
 * `@foxbell/server/simulator`: the APNs simulator (Apple's provider API over HTTP/2, for tests and
 * the device page) and its control API. Apart from the library's entry point: a production server has
 * no use for it.
 */

export { buildSimulatorControl } from './control.js';
export { localCertificate } from './local-certificate.js';
export {
  ApnsSimulator,
  type ApnsSimulatorOptions,
  type ReceivedPush,
  type ScriptedApnsResponse,
} from './simulator.js';
