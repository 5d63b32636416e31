import { readConfig, USAGE } from '../config/server-settings.js';
import { systemClock } from '../kernel/clock.js';
import { settingsErrors } from '../kernel/settings.js';
import { DataDirUnsafeError } from '../store/data-dir.js';
import { DatabaseUnreachableError } from '../store/postgres/open.js';
import { NewerDatabaseError } from '../store/schema-version.js';
import { DataDirInUseError } from '../store/sqlite/open.js';
import { serve } from './serve.js';
import { TlsFilesError } from './tls-files.js';
import { runWorker } from './worker.js';

/** `foxbell-server [worker|admin|backup|restore] …`: reads the settings once, then runs the mode they name. */
async function main(): Promise<void> {
  // Whatever the server makes from here on (the database's journal and lock files, a worker's
  // owner files) is its user's alone, as the start-time pass makes what was already there.
  process.umask(0o077);
  if (process.argv[2] === 'admin') {
    // A client of a running server: none of the server loads.
    const { runAdmin } = await import('./admin/run.js');
    process.exitCode = await runAdmin(process.argv.slice(3), {
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
    });
    return;
  }
  const command = process.argv[2];
  if (command === 'backup' || command === 'restore') {
    const { runBackup } = await import('./backup.js');
    process.exitCode = await runBackup(command, process.argv.slice(3), {
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
    });
    return;
  }
  const read = readConfig(process.argv.slice(2), process.env);
  if (read.ok === 'help') {
    process.stdout.write(USAGE);
    return;
  }
  if (!read.ok) {
    process.stderr.write(settingsErrors('foxbell-server', read.problems));
    process.exit(2);
  }
  const { config } = read;
  for (const warning of read.warnings) process.stderr.write(`foxbell-server: warning: ${warning}\n`);
  if (config.command === 'worker') return runWorker(config, systemClock);
  return serve(config, systemClock);
}

/** Failures an operator can mend, said in one line; anything else with its stack. */
const EXPECTED = [
  DataDirInUseError,
  DataDirUnsafeError,
  TlsFilesError,
  DatabaseUnreachableError,
  NewerDatabaseError,
];

main().catch((error: unknown) => {
  const expected = EXPECTED.some((kind) => error instanceof kind);
  process.stderr.write(
    `foxbell-server: ${expected ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`,
  );
  process.exit(1);
});
