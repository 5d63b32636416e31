import { chmod, lstat, mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { send } from '../helpers.js';
import { ADMIN, BIN, keepSending, runScript, startProcess, tempDir, UNLIMITED } from '../processes.js';

const STATES = ['accepted', 'sent_to_push', 'delivered', 'dropped'];

/** `foxbell-server backup|restore …` to its end. */
const run = (args: string[]) => runScript(BIN, args, {});

describe('foxbell-server backup and restore (SQLite)', () => {
  it('copies a running server while sends and deliveries go on; the restored copy has every notification accepted before, with its status', async () => {
    const dir = await tempDir();
    const data = path.join(dir, 'data');
    const server = await startProcess([
      '--data',
      data,
      '--admin-key',
      ADMIN,
      '--log-level',
      'warn',
      ...UNLIMITED,
    ]);
    const { token, accepted, stop } = await keepSending(server.url);
    await expect.poll(() => accepted.length, { timeout: 10_000 }).toBeGreaterThan(30);
    const before = [...accepted];
    const backupFile = path.join(dir, 'foxbell-backup.db');
    const made = await run(['backup', '--data', data, '--to', backupFile]);
    const during = accepted.length;
    await expect.poll(() => accepted.length, { timeout: 10_000 }).toBeGreaterThan(during + 10);
    await stop();

    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    const counted = Number(/: (\d+) notifications, schema version \d+\n/.exec(made.stdout)?.[1]);
    expect(counted).toBeGreaterThanOrEqual(before.length);
    expect(made.stdout).toContain(`backed up ${data} to ${backupFile}`);
    expect(made.stdout).toContain('keep it private');
    // Private to its user, as the data directory is.
    expect((await stat(backupFile)).mode & 0o777).toBe(0o600);

    const restored = path.join(dir, 'restored');
    const brought = await run(['restore', '--from', backupFile, '--data', restored]);
    expect([brought.code, brought.stderr]).toEqual([0, '']);
    expect(brought.stdout).toBe(
      `restored ${backupFile} into ${restored}: ${counted} notifications, schema version ${/schema version (\d+)/.exec(made.stdout)?.[1]}\nstart it with: foxbell-server --data ${restored}\n`,
    );
    expect((await stat(restored)).mode & 0o777).toBe(0o700);

    const copy = await startProcess([
      '--data',
      restored,
      '--admin-key',
      ADMIN,
      '--log-level',
      'warn',
      '--no-workers',
      ...UNLIMITED,
    ]);
    for (const id of before) {
      const record = await send(copy.url, 'GET', `/v1/notifications/${id}/status`, { token });
      expect(record.status, `${id}: ${record.text}`).toBe(200);
      expect(STATES).toContain(record.body.status);
    }
    // The copy serves sends with the same token.
    const after = await send(copy.url, 'POST', '/v1/notifications', { token, json: { message: 'after' } });
    expect(after.status, after.text).toBe(202);
  }, 60_000);

  it('refuses to overwrite a file or a data directory, a file that is not a backup, and names what to do', async () => {
    const dir = await tempDir();
    const data = path.join(dir, 'data');
    const server = await startProcess(['--data', data, '--admin-key', ADMIN, '--log-level', 'warn']);
    server.child.kill('SIGTERM');
    await server.exited;
    const taken = path.join(dir, 'taken.db');
    await writeFile(taken, 'not a database');

    expect(await run(['backup', '--data', data, '--to', taken])).toEqual({
      code: 1,
      stdout: '',
      stderr: `foxbell-server backup: ${taken} exists (a file or a link): name a new file for the backup\n`,
    });
    expect(await run(['backup', '--data', path.join(dir, 'none'), '--to', path.join(dir, 'x.db')])).toEqual({
      code: 1,
      stdout: '',
      stderr: `foxbell-server backup: there is no Foxbell database in ${path.join(dir, 'none')}\n`,
    });
    const fresh = path.join(dir, 'fresh');
    await mkdir(fresh);
    const notBackup = await run(['restore', '--from', taken, '--data', fresh]);
    expect(notBackup.code).toBe(1);
    expect(notBackup.stderr).toMatch(
      new RegExp(`^foxbell-server restore: ${taken} is not a Foxbell backup: `),
    );
    const good = path.join(dir, 'good.db');
    expect((await run(['backup', '--data', data, '--to', good])).code).toBe(0);
    expect(await run(['restore', '--from', good, '--data', data])).toEqual({
      code: 1,
      stdout: '',
      stderr: `foxbell-server restore: ${data} is not empty: restore into a new, empty data directory\n`,
    });
    const usage = await run(['backup', '--data', data]);
    // The problem and where the settings are described, not the whole help.
    expect([usage.code, usage.stderr]).toEqual([
      2,
      'foxbell-server backup: --to FILE is required\n' +
        'foxbell-server backup: `foxbell-server backup --help` lists every setting\n',
    ]);
    const postgres = await runScript(BIN, ['backup', '--to', good], {
      FOXBELL_DATABASE_URL: 'postgres://x/y',
    });
    expect(postgres.code).toBe(2);
    expect(postgres.stderr).toMatch(/the store is PostgreSQL; back it up with pg_dump/);
  }, 30_000);

  it('creates the backup itself, 0600, and never through a link planted at its name', async () => {
    const dir = await tempDir();
    const data = path.join(dir, 'data');
    const server = await startProcess(['--data', data, '--admin-key', ADMIN, '--log-level', 'warn']);
    server.child.kill('SIGTERM');
    await server.exited;
    // A folder anyone may write in, as /tmp is, where another user planted links at the names a
    // backup might take: to a path that does not exist yet, and to a file of theirs.
    const shared = path.join(dir, 'shared');
    await mkdir(shared);
    await chmod(shared, 0o1777);
    const planted = path.join(shared, 'foxbell.db');
    const theirs = path.join(dir, 'theirs', 'loot.db');
    await mkdir(path.dirname(theirs));
    await symlink(theirs, planted);
    const existing = path.join(dir, 'theirs', 'existing.db');
    await writeFile(existing, '');
    const plantedToFile = path.join(shared, 'other.db');
    await symlink(existing, plantedToFile);

    for (const to of [planted, plantedToFile]) {
      expect(await run(['backup', '--data', data, '--to', to])).toEqual({
        code: 1,
        stdout: '',
        stderr: `foxbell-server backup: ${to} exists (a file or a link): name a new file for the backup\n`,
      });
    }
    await expect(lstat(theirs)).rejects.toThrow(/ENOENT/);
    expect((await stat(existing)).size).toBe(0);

    // A new name: made by the backup, private whatever the umask, and nothing left in the data
    // directory but the database.
    const fresh = path.join(shared, 'fresh.db');
    const made = await runScript(
      '-c',
      ['umask 000 && exec "$0" "$@"', process.execPath, BIN, 'backup', '--data', data, '--to', fresh],
      {},
      undefined,
      '/bin/sh',
    );
    expect([made.code, made.stderr]).toEqual([0, '']);
    const copy = await lstat(fresh);
    expect([copy.isFile(), copy.mode & 0o777]).toEqual([true, 0o600]);
    expect((await readdir(data)).filter((name) => name.startsWith('.backup'))).toEqual([]);
  }, 30_000);
});
