export {
  ADMIN,
  BIN,
  call,
  type Running,
  startProcess,
  startServerWithToken,
  startTlsProcess,
} from './foxbell-server.js';
export {
  cleanUpAfterTest,
  EXTRA_NODES,
  freePort,
  keptForAll,
  killAfterTest,
  runScript,
  tempDir,
} from './processes.js';
export { startTinyproxy } from './tinyproxy.js';
