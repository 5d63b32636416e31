export {
  ADMIN,
  BIN,
  call,
  type Running,
  startProcess,
  startServerWithToken,
  startTlsProcess,
} from './foxbell-server.js';
export { freePort } from './ports.js';
export {
  cleanUpAfterTest,
  EXTRA_NODES,
  keptForAll,
  killAfterTest,
  runScript,
  tempDir,
} from './processes.js';
export { startTinyproxy } from './tinyproxy.js';
