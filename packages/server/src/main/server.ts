/**
 * `foxbell-server [worker|admin|backup|restore] …`: each mode loads its own modules only. `admin`
 * is a client of a running server and loads none of the server's: imported here, they cost each
 * command an operator types (and each of the many a test runs) most of a second of CPU.
 */
async function main(): Promise<void> {
  // Whatever the server makes from here on (the database's journal and lock files, a worker's
  // owner files) is its user's alone, as the start-time pass makes what was already there.
  process.umask(0o077);
  const command = process.argv[2];
  if (command === 'admin') {
    const { runAdmin } = await import('./admin/run.js');
    process.exitCode = await runAdmin(process.argv.slice(3), {
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
    });
    return;
  }
  if (command === 'backup' || command === 'restore') {
    const { runBackup } = await import('./backup.js');
    process.exitCode = await runBackup(command, process.argv.slice(3), {
      stdout: process.stdout,
      stderr: process.stderr,
      env: process.env,
    });
    return;
  }
  const { runServer } = await import('./run-server.js');
  await runServer(process.argv.slice(2));
}

main().catch(async (error: unknown) => {
  const { isExpectedFailure } = await import('./expected-failures.js');
  process.stderr.write(
    `foxbell-server: ${isExpectedFailure(error) ? (error as Error).message : ((error as Error).stack ?? String(error))}\n`,
  );
  process.exit(1);
});
