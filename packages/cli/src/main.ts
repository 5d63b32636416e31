import { hideBin } from 'yargs/helpers';
import { runCli } from './cli.js';

/** The `notify` process: runs the CLI on its arguments and streams. The only module that sets the exit code. */

// `notify scenes | head -1`: a reader that has gone away is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(process.exitCode ?? 0);
});

// No top-level await: the build turns this module into CommonJS (see tsup.config.ts).
void runCli(hideBin(process.argv), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  stdin: process.stdin,
}).then((code) => {
  process.exitCode = code;
});
