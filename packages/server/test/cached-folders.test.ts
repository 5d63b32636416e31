import { mkdir, readdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '@foxbell/test-support';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { builtOnce, sharedCacheFolder } from './cached-folders.js';

/** The slow tests' cache (cached-folders.ts), in a cache folder of this test's own. */
let cache: string;
beforeEach(async () => {
  cache = await tempDir();
  vi.stubEnv('XDG_CACHE_HOME', cache);
  vi.stubEnv('FOXBELL_TEST_CACHE', undefined);
  return () => vi.unstubAllEnvs();
});

/** A build that writes one file, once `before` has ended, counting its runs. */
function counted(before: () => Promise<void> = async () => {}) {
  const runs: string[] = [];
  const build = async (folder: string) => {
    runs.push(folder);
    await before();
    await writeFile(path.join(folder, 'built'), `built in ${folder}`);
  };
  return { runs, build };
}

describe('builtOnce', () => {
  it('builds a key once, in a sibling renamed into place, and hands the same folder out again', async () => {
    const { runs, build } = counted();
    const folder = await builtOnce('releases', 'k1', build);
    expect(folder).toBe(path.join(cache, 'foxbell', 'releases', 'k1'));
    expect(runs).toHaveLength(1);
    expect(path.dirname(runs[0] as string)).toBe(path.dirname(folder));
    expect(runs[0]).not.toBe(folder);
    expect(await builtOnce('releases', 'k1', build)).toBe(folder);
    expect(runs).toHaveLength(1);
    expect(await readdir(path.dirname(folder))).toEqual(['k1']);
  });

  it('of two runs building at once, hands both the one folder in place, complete, and leaves no sibling', async () => {
    // Both builds start before either ends (each found no folder in place), and the second's is
    // in place before the first ends.
    let firstStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      firstStarted = resolve;
    });
    const inPlace = path.join(cache, 'foxbell', 'releases', 'k1');
    const first = counted(async () => {
      firstStarted();
      await vi.waitFor(() => stat(inPlace), { timeout: 10_000, interval: 5 });
    });
    const second = counted(() => started);
    const folders = await Promise.all([
      builtOnce('releases', 'k1', first.build),
      builtOnce('releases', 'k1', second.build),
    ]);
    expect(folders[0]).toBe(folders[1]);
    expect(first.runs.length + second.runs.length).toBe(2);
    // The second to finish (the first here) dropped its own.
    expect(await readFile(path.join(folders[0] as string, 'built'), 'utf8')).toBe(
      `built in ${second.runs[0]}`,
    );
    expect(await readdir(path.join(cache, 'foxbell', 'releases'))).toEqual(['k1']);
  });

  it('leaves nothing when the build fails, and builds again on the next run', async () => {
    await expect(
      builtOnce('releases', 'k1', async (folder) => {
        await writeFile(path.join(folder, 'half'), '');
        throw new Error('the build failed');
      }),
    ).rejects.toThrow('the build failed');
    expect(await readdir(path.join(cache, 'foxbell', 'releases'))).toEqual([]);
    const { runs, build } = counted();
    await builtOnce('releases', 'k1', build);
    expect(runs).toHaveLength(1);
  });

  it("removes the kind's folders unused for a week, a killed run's sibling too, and keeps the others", async () => {
    const releases = path.join(cache, 'foxbell', 'releases');
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600_000);
    const sixDaysAgo = new Date(Date.now() - 6 * 24 * 3600_000);
    for (const [name, used] of [
      ['old', eightDaysAgo],
      ['k1.partial-0000', eightDaysAgo],
      ['recent', sixDaysAgo],
      ['k1', eightDaysAgo],
    ] as const) {
      await mkdir(path.join(releases, name), { recursive: true });
      await utimes(path.join(releases, name), used, used);
    }
    await mkdir(path.join(cache, 'foxbell', 'other', 'old'), { recursive: true });
    await utimes(path.join(cache, 'foxbell', 'other', 'old'), eightDaysAgo, eightDaysAgo);
    const { runs, build } = counted();
    await builtOnce('releases', 'k1', build);
    expect(runs).toEqual([]);
    expect((await readdir(releases)).sort()).toEqual(['k1', 'recent']);
    expect(await readdir(path.join(cache, 'foxbell', 'other'))).toEqual(['old']);
  });

  it('with FOXBELL_TEST_CACHE=off, builds each time in a folder of the test, keeping nothing', async () => {
    vi.stubEnv('FOXBELL_TEST_CACHE', 'off');
    const { runs, build } = counted();
    const folders = [await builtOnce('releases', 'k1', build), await builtOnce('releases', 'k1', build)];
    expect(runs).toEqual(folders);
    expect(folders[0]).not.toBe(folders[1]);
    expect(folders[0]?.startsWith(cache)).toBe(false);
    expect(await readdir(cache)).toEqual([]);
  });
});

describe('sharedCacheFolder', () => {
  it('hands every run the folder of the key, marked used; with FOXBELL_TEST_CACHE=off, one of its own', async () => {
    const weekAgo = new Date(Date.now() - 8 * 24 * 3600_000);
    const folder = path.join(cache, 'foxbell', 'container-test', 'k1');
    await mkdir(folder, { recursive: true });
    await utimes(folder, weekAgo, weekAgo);
    expect(await sharedCacheFolder('container-test', 'k1')).toEqual({ folder, cached: true });
    // Used now: a run of another key a week from now would not remove it.
    expect((await stat(folder)).mtimeMs).toBeGreaterThan(Date.now() - 60_000);
    vi.stubEnv('FOXBELL_TEST_CACHE', 'off');
    const own = await sharedCacheFolder('container-test', 'k1');
    expect(own.cached).toBe(false);
    expect(own.folder.startsWith(cache)).toBe(false);
  });
});
