// The SDK's size as an app ships it: everything `@foxbell/sdk` exports, bundled with its
// dependencies (ky, zod/mini), minified and gzipped. Baseline: ky alone, bundled the same way.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

async function bundledBytes(source: string): Promise<{ raw: number; gzip: number }> {
  const result = await build({
    stdin: {
      contents: source,
      resolveDir: new URL('../packages/sdk', import.meta.url).pathname,
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

const sdk = await bundledBytes("export * from '@foxbell/sdk';");
const ky = await bundledBytes("export { default } from 'ky';");
const kb = (bytes: number) => Math.round((bytes / 1024) * 100) / 100;

console.log(
  `@foxbell/sdk with ky and zod/mini: ${kb(sdk.raw)} KB minified, ${kb(sdk.gzip)} KB min+gzip (goal: under 15)`,
);
console.log(`ky alone:                          ${kb(ky.raw)} KB minified, ${kb(ky.gzip)} KB min+gzip`);
console.log(
  JSON.stringify({
    bench: 'sdk-size',
    value: kb(sdk.gzip),
    unit: 'KB min+gzip',
    baseline: kb(ky.gzip),
    ratio: Math.round((sdk.gzip / ky.gzip) * 100) / 100,
  }),
);
