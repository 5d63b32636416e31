import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** The data directory cannot be made private to this user (owned by another, read-only…). */
export class DataDirUnsafeError extends Error {
  constructor(dataDir: string, cause: unknown) {
    super(
      `cannot make ${dataDir} private to this user (${(cause as NodeJS.ErrnoException).code ?? String(cause)}); ` +
        'it holds messages, push tokens and credential hashes: choose a directory this user owns',
    );
  }
}

/**
 * Makes the data directory readable by this user only, whatever it was before: the directory and
 * those in it 0700, and every file 0600. Called before the database is opened (a directory an older
 * release left 0755) and again after (the files SQLite has just made with the umask's mode); the
 * directory's own mode already keeps other users out of the files in between.
 */
export function makeDataDirPrivate(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    makePrivate(dataDir);
  } catch (error) {
    throw new DataDirUnsafeError(dataDir, error);
  }
}

function makePrivate(dir: string): void {
  chmodSync(dir, 0o700);
  for (const name of readdirSync(dir)) {
    const entry = path.join(dir, name);
    const stats = lstatSync(entry);
    if (stats.isFile()) chmodSync(entry, 0o600);
    else if (stats.isDirectory()) makePrivate(entry);
  }
}
