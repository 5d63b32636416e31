import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { publint } from 'publint';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUDGET_KB, bundledBytes } from '../scripts/bundle-size.js';

// These tests read the built package (`pnpm test` builds first), as a user installs it.
const run = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const node = (...args: string[]) => run(process.execPath, args, { cwd: packageDir });

beforeAll(() => {
  if (!existsSync(`${packageDir}/dist/index.js`)) throw new Error('dist/ is missing: run `pnpm build` first');
});

/**
 * The package as published, packed once into a folder of this run's: never in the package's own
 * folder, where CI's two Node lanes run this file at once and one would read (or delete) the
 * other's half-written tarball. `pnpm pack` writes what is published: `catalog:` and `workspace:`
 * replaced.
 */
let packDir: string | undefined;
let tarball: Promise<string> | undefined;
const packed = () => {
  tarball ??= (async () => {
    packDir = await mkdtemp(path.join(tmpdir(), 'foxbell-pack-'));
    await run('pnpm', ['pack', '--pack-destination', packDir], { cwd: packageDir });
    const [name] = (await readdir(packDir)).filter((file) => file.endsWith('.tgz'));
    return path.join(packDir, name as string);
  })();
  return tarball;
};
afterAll(() => packDir && rm(packDir, { recursive: true, force: true }));

describe('the published package', () => {
  it('passes publint with no messages', async () => {
    const { messages } = await publint({ pkgDir: packageDir, strict: true });
    expect(messages).toEqual([]);
  });

  it('depends on ky and zod by ranges, so an app with its own copy of either gets no second one', async () => {
    const { stdout } = await run('tar', ['-xzOf', await packed(), 'package/package.json']);
    const dependencies = JSON.parse(stdout).dependencies as Record<string, string>;
    expect(Object.keys(dependencies).sort()).toEqual(['ky', 'zod']);
    for (const range of Object.values(dependencies)) expect(range).toMatch(/^\^\d+\.\d+\.\d+$/);
  }, 60_000);

  it('passes @arethetypeswrong/cli for every Node 16+ resolution', async () => {
    const { stdout } = await run(bin('attw'), [await packed(), '--profile', 'node16', '--format', 'json'], {
      cwd: packageDir,
    }).catch((error: { stdout: string }) => error);
    const report = JSON.parse(stdout) as { analysis: { problems: { resolutionKind?: string }[] } };
    // node10 resolution predates `exports` and so cannot see the /contract subpath; Node >= 20.19 never uses it.
    expect(report.analysis.problems.filter((problem) => problem.resolutionKind !== 'node10')).toEqual([]);
  }, 60_000);

  it('imports from ESM and requires from CJS, both entry points', async () => {
    const esm = await node(
      '--input-type=module',
      '-e',
      `import * as sdk from '@foxbell/sdk'; import * as contract from '@foxbell/sdk/contract';
       console.log(typeof sdk.Foxbell, typeof sdk.ValidationError, typeof contract.validateSend)`,
    );
    const cjs = await node(
      '-e',
      `const sdk = require('@foxbell/sdk'); const contract = require('@foxbell/sdk/contract');
       console.log(typeof sdk.Foxbell, typeof sdk.ValidationError, typeof contract.validateSend)`,
    );
    expect(esm.stdout.trim()).toBe('function function function');
    expect(cjs.stdout.trim()).toBe('function function function');
  });

  it('keeps instanceof working between the ESM and the CJS build in one process', async () => {
    const { stdout } = await node(
      '--input-type=module',
      '-e',
      `import { createRequire } from 'node:module';
       import * as esm from '@foxbell/sdk';
       const cjs = createRequire(process.cwd() + '/')('@foxbell/sdk');
       const fromCjs = new cjs.Foxbell({ token: 'fox_send_'+'a'.repeat(32), baseUrl: 'https://x.test' });
       const error = await fromCjs.send({ message: '' }).catch((e) => e);
       const fromEsm = await new esm.Foxbell({ token: 'fox_send_'+'a'.repeat(32), baseUrl: 'https://x.test' }).send({ message: '' }).catch((e) => e);
       console.log(cjs.ValidationError !== esm.ValidationError, error instanceof esm.ValidationError,
         error instanceof esm.FoxbellError, fromEsm instanceof cjs.ValidationError, error instanceof esm.ApiError)`,
    );
    expect(stdout.trim()).toBe('true true true true false');
  });

  it(`weighs at most ${BUDGET_KB} KB min+gzip as an app ships it, bundled with ky and zod (pnpm bench sdk-size)`, async () => {
    const { gzip } = await bundledBytes("export * from '@foxbell/sdk';");
    expect(gzip).toBeLessThanOrEqual(BUDGET_KB * 1024);
  });

  it('has types that resolve for ESM and CJS TypeScript users', async () => {
    const result = await run(
      bin('tsc'),
      [
        '--ignoreConfig',
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--types',
        'node',
        'test/fixtures/consumer.mts',
        'test/fixtures/consumer.cts',
      ],
      { cwd: packageDir },
    ).catch((error: { stdout: string; code: number }) => error);
    expect(result.stdout).toBe('');
  }, 60_000);
});
