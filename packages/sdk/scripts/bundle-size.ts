/**
 * The SDK's size as an app ships it, and the budget it stays within: source bundled from the built
 * package with its dependencies (ky, zod/mini), minified and gzipped. `pnpm bench sdk-size` reports
 * it beside the sizes of its parts; test/packaging.process.test.ts fails when it is over budget.
 * The size depends only on the sources and the lockfile, so it is the same on every machine.
 */
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/**
 * `export * from '@foxbell/sdk'` may weigh at most this, min+gzip: also over 25% under the
 * smallest peer SDK bundled the same way (resend, 33.3 KB).
 */
export const BUDGET_KB = 24;

/** The bytes of `source` (a module importing the SDK or its dependencies) bundled, minified and gzipped. */
export async function bundledBytes(source: string): Promise<{ raw: number; gzip: number }> {
  const result = await build({
    stdin: {
      contents: source,
      resolveDir: new URL('..', import.meta.url).pathname,
      loader: 'ts',
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { raw: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength };
}
