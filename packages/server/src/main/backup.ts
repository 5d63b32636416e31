import { parseArgs } from 'node:util';
import { NewerDatabaseError } from '../store/schema-version.js';
import { BackupError, backupSqlite, restoreSqlite } from '../store/sqlite/backup.js';

/** What `foxbell-server backup` and `restore` touch of their process. */
export interface BackupIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export const BACKUP_USAGE = `Usage: foxbell-server backup --to FILE [--data DIR]
       foxbell-server restore --from FILE --data DIR

backup   copies the SQLite database of DIR to FILE, while a server may be running on it
restore  brings such a copy into DIR, which must be new or empty; then start foxbell-server on it

  --data DIR   the data directory (default: $FOXBELL_DATA, else ./.foxbell)
  --to FILE    the backup to write; it must not exist
  --from FILE  the backup to restore

A backup holds the Web Push key pair, every notification and device, and the hashes of every key
and token: keep it as private as the data directory. For PostgreSQL use pg_dump and pg_restore.

Exit codes: 0 done · 1 could not (said why) · 2 usage mistake
`;

/** `foxbell-server backup|restore …`: the exit code. */
export async function runBackup(
  command: 'backup' | 'restore',
  args: string[],
  io: BackupIo,
): Promise<number> {
  const usage = (problem: string) => {
    io.stderr.write(`foxbell-server ${command}: ${problem}\n\n${BACKUP_USAGE}`);
    return 2;
  };
  let values: {
    data?: string | undefined;
    to?: string | undefined;
    from?: string | undefined;
    help?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        data: { type: 'string' },
        to: { type: 'string' },
        from: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    return usage((error as Error).message);
  }
  if (values.help) {
    io.stdout.write(BACKUP_USAGE);
    return 0;
  }
  if (io.env.FOXBELL_DATABASE_URL) {
    return usage('FOXBELL_DATABASE_URL is set: the store is PostgreSQL; back it up with pg_dump');
  }
  const dataDir = values.data ?? io.env.FOXBELL_DATA ?? './.foxbell';
  try {
    if (command === 'backup') {
      if (values.to === undefined) return usage('--to FILE is required');
      if (values.from !== undefined) return usage('--from is for restore');
      const facts = await backupSqlite(dataDir, values.to);
      io.stdout.write(
        `backed up ${dataDir} to ${values.to}: ${facts.notifications} notifications, schema version ${facts.schemaVersion}\n` +
          'it holds the Web Push key pair and the hashes of every key and token: keep it private\n',
      );
    } else {
      if (values.from === undefined) return usage('--from FILE is required');
      if (values.to !== undefined) return usage('--to is for backup');
      if (values.data === undefined && io.env.FOXBELL_DATA === undefined)
        return usage('--data DIR is required');
      const facts = await restoreSqlite(values.from, dataDir);
      io.stdout.write(
        `restored ${values.from} into ${dataDir}: ${facts.notifications} notifications, schema version ${facts.schemaVersion}\n` +
          `start it with: foxbell-server --data ${dataDir}\n`,
      );
    }
    return 0;
  } catch (error) {
    if (!(error instanceof BackupError || error instanceof NewerDatabaseError)) throw error;
    io.stderr.write(`foxbell-server ${command}: ${error.message}\n`);
    return 1;
  }
}
