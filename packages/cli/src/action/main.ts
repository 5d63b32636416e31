import { runAction } from './run-action.js';

/** The action's process, as the runner starts it (`node packages/cli/action/notify-action.mjs`). */
const code = await runAction({
  env: process.env,
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
process.exitCode = code;
