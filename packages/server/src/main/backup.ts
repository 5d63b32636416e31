import { SERVER_SETTINGS } from '../config/server-settings.js';
import { readSettings, type Setting, settingsErrors, usageOf } from '../kernel/settings.js';
import { NewerDatabaseError } from '../store/schema-version.js';
import { BackupError, backupSqlite, restoreSqlite } from '../store/sqlite/backup.js';

/** What `foxbell-server backup` and `restore` touch of their process. */
export interface BackupIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/**
 * The settings of `backup` and `restore`, read as the server reads its own. `--data` is the
 * server's row, without its default: `restore` wants it named, `backup` takes the server's.
 */
const BACKUP_SETTINGS = {
  data: {
    flag: SERVER_SETTINGS.data.flag,
    variable: SERVER_SETTINGS.data.variable,
    argument: 'DIR',
    type: 'text',
    defaultText: `${SERVER_SETTINGS.data.default} for backup`,
    help: 'the data directory',
  },
  to: { flag: 'to', argument: 'FILE', type: 'text', help: 'the backup to write; it must not exist' },
  from: { flag: 'from', argument: 'FILE', type: 'text', help: 'the backup to restore' },
} as const satisfies Record<string, Setting>;

export const BACKUP_USAGE = `${usageOf(
  `Usage: foxbell-server backup --to FILE [--data DIR]
       foxbell-server restore --from FILE --data DIR

backup   copies the SQLite database of DIR to FILE, while a server may be running on it
restore  brings such a copy into DIR, which must be new or empty; then start foxbell-server on it`,
  BACKUP_SETTINGS,
)}
A backup holds the keys push services know this server by, every notification and device, and the
hashes of every key and token: keep it as private as the data directory. For PostgreSQL use pg_dump and pg_restore.

Exit codes: 0 done · 1 could not (said why) · 2 usage mistake
`;

/** `foxbell-server backup|restore …`: the exit code. */
export async function runBackup(
  command: 'backup' | 'restore',
  args: string[],
  io: BackupIo,
): Promise<number> {
  const usage = (problem: string) => {
    io.stderr.write(settingsErrors(`foxbell-server ${command}`, [problem]));
    return 2;
  };
  const read = readSettings(BACKUP_SETTINGS, args, io.env);
  if (read.ok === 'help') {
    io.stdout.write(BACKUP_USAGE);
    return 0;
  }
  if (!read.ok) return usage(read.problems.join('; '));
  const { values } = read;
  const database = SERVER_SETTINGS.database.variable;
  if (io.env[database]) return usage(`${database} is set: the store is PostgreSQL; back it up with pg_dump`);
  const dataDir = values.data ?? SERVER_SETTINGS.data.default;
  try {
    if (command === 'backup') {
      if (values.to === undefined) return usage('--to FILE is required');
      if (values.from !== undefined) return usage('--from is for restore');
      const facts = await backupSqlite(dataDir, values.to);
      io.stdout.write(
        `backed up ${dataDir} to ${values.to}: ${facts.notifications} notifications, schema version ${facts.schemaVersion}\n` +
          'it holds the keys push services know this server by and the hashes of every key and token: keep it private\n',
      );
    } else {
      if (values.from === undefined) return usage('--from FILE is required');
      if (values.to !== undefined) return usage('--to is for backup');
      if (values.data === undefined) return usage('--data DIR is required');
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
