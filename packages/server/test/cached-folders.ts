import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { tempDir } from '@foxbell/test-support';

/**
 * What the slowest tests make once and keep between runs (a container engine's layers, an earlier
 * release built): a folder per kind and key, `foxbell/<kind>/<key>` under `$XDG_CACHE_HOME` (else
 * `~/.cache`), the key naming everything its contents depend on. A folder is marked used each
 * time a test takes it, and the folders of a kind unused for a week are removed then.
 * `FOXBELL_TEST_CACHE=off` keeps nothing: each test makes its own in a folder removed after it, as
 * a first run does.
 */
const off = () => process.env.FOXBELL_TEST_CACHE === 'off';
const WEEK_MS = 7 * 24 * 3600_000;

/** `kind`'s folder of `key`, marked used; the kind's other folders unused for a week removed. */
async function keyFolder(kind: string, key: string): Promise<string> {
  const cache = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'foxbell', kind);
  await mkdir(cache, { recursive: true });
  const weekAgo = Date.now() - WEEK_MS;
  for (const entry of await readdir(cache)) {
    const folder = path.join(cache, entry);
    // Another run may be removing it too.
    const used = await stat(folder).then(
      (stats) => stats.mtimeMs,
      () => Date.now(),
    );
    if (entry !== key && used < weekAgo) await remove(folder);
  }
  return path.join(cache, key);
}

/**
 * Takes `folder` out of its place at once (a rename), then deletes it: a removal interrupted or
 * raced by another run never leaves a half-deleted folder at a key's name. Best effort: a folder
 * that cannot go (another run took it away first, files the test cannot delete) stays for the next
 * run to try, and fails no test.
 */
async function remove(folder: string): Promise<void> {
  const removing = `${folder}.removing-${randomBytes(4).toString('hex')}`;
  try {
    await rename(folder, removing);
    await rm(removing, { recursive: true, force: true });
  } catch {}
}

async function markUsed(folder: string): Promise<void> {
  const now = new Date();
  await utimes(folder, now, now);
}

/**
 * A folder that runs, of this checkout or another, use at the same time (a container engine's
 * storage, which locks its own state), or with `FOXBELL_TEST_CACHE=off` a fresh one of the test's
 * own; `cached` says which.
 */
export async function sharedCacheFolder(
  kind: string,
  key: string,
): Promise<{ folder: string; cached: boolean }> {
  if (off()) return { folder: await tempDir(), cached: false };
  const folder = await keyFolder(kind, key);
  await mkdir(folder, { recursive: true });
  await markUsed(folder);
  return { folder, cached: true };
}

/**
 * The folder `build` fills, built once per key (with `FOXBELL_TEST_CACHE=off`, each time, in a
 * folder of the test's own). It is built in a sibling of a name of its own and renamed into place
 * once complete, so that a folder in place is a complete one: a run killed midway leaves only its
 * sibling (removed a week later, as unused), and of two runs building at once, the second to finish
 * drops its own and takes the first's.
 */
export async function builtOnce(
  kind: string,
  key: string,
  build: (folder: string) => Promise<void>,
): Promise<string> {
  if (off()) {
    const folder = await tempDir();
    await build(folder);
    return folder;
  }
  const folder = await keyFolder(kind, key);
  // Twice at most: another run may take a week-old folder away between finding it and marking it.
  for (let tries = 1; ; tries++) {
    const complete = await stat(folder).then(
      () => true,
      () => false,
    );
    if (!complete) await buildInPlace(folder, build);
    try {
      await markUsed(folder);
      return folder;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || tries === 2) throw error;
    }
  }
}

/** `build` in a sibling of `folder`, renamed into place; a folder another run put there first wins. */
async function buildInPlace(folder: string, build: (folder: string) => Promise<void>): Promise<void> {
  const partial = `${folder}.partial-${randomBytes(4).toString('hex')}`;
  await mkdir(partial);
  try {
    await build(partial);
    await rename(partial, folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error;
    });
  } finally {
    // Never in place of the build's own error.
    await rm(partial, { recursive: true, force: true }).catch(() => {});
  }
}
