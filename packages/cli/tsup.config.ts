import { readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { defineConfig } from 'tsup';

/**
 * Two modules the bundled parser imports cost every run more than the rest of it (CPU profile of
 * `notify --version` on Node 26): string-width, which yargs' help layout has in two versions,
 * builds an `Intl.Segmenter` and compiles Unicode-property regular expressions as it loads
 * (25 ms), and node:assert (5 ms) loads for two equality checks that never fail. Each import of
 * them gets a stand-in: string-width's loads the real module on its first call (esbuild bundles
 * a module reached by `require` to run when first required), and assert's compares with
 * `Object.is` as node:assert does, loading node:assert only to throw its error.
 */
const standIns: Plugin = {
  name: 'stand-ins',
  setup(build) {
    build.onResolve({ filter: /^string-width$/ }, async (args) => {
      if (args.namespace === 'stand-in') return undefined;
      const real = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir || dirname(args.importer),
        namespace: 'stand-in',
      });
      if (real.errors.length > 0) return { errors: real.errors };
      return { path: real.path, namespace: 'stand-in', pluginData: 'string-width' };
    });
    build.onResolve({ filter: /^assert$/ }, () => ({
      path: 'assert',
      namespace: 'stand-in',
      pluginData: 'assert',
    }));
    // yargs looks for the app's package.json from the folder above its own node_modules; bundled
    // into dist/ it has none, so it would search up from the user's working directory (reading
    // whatever package.json it meets) on every run. Point it at this package instead.
    build.onLoad({ filter: /yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const search = "__dirname.substring(0, __dirname.lastIndexOf('node_modules'))";
      if (!source.includes(search))
        return { errors: [{ text: `yargs' ESM shim changed: ${search} not found` }] };
      return {
        contents: source.replace(search, "fileURLToPath(new URL('..', import.meta.url))"),
        loader: 'js',
      };
    });
    // After starting a command's handler yargs renders that command's whole help, to keep it for
    // a handler that rejects (its state is reset by then). notify's handlers never reject: they
    // report their own failures. The rendering measured string widths of every line, and was a
    // fifth of `notify send --dry-run` (CPU profile, Node 26).
    build.onLoad({ filter: /yargs[\\/]build[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const search = 'yargs.getInternalMethods().getUsageInstance().cacheHelpMessage();';
      if (!source.includes(search))
        return { errors: [{ text: `yargs' command.js changed: ${search} not found` }] };
      return { contents: source.replace(search, ''), loader: 'js' };
    });
    build.onLoad({ filter: /.*/, namespace: 'stand-in' }, (args) =>
      args.pluginData === 'assert'
        ? {
            contents: `const assert = () => process.getBuiltinModule('node:assert');
export function strictEqual(actual, expected, message) {
  if (!Object.is(actual, expected)) assert().strictEqual(actual, expected, message);
}
export function notStrictEqual(actual, expected, message) {
  if (Object.is(actual, expected)) assert().notStrictEqual(actual, expected, message);
}`,
            loader: 'js',
          }
        : {
            contents: `let width;
export default function stringWidth(text, options) {
  width ??= require(${JSON.stringify(args.path)}).default;
  return width(text, options);
}`,
            resolveDir: dirname(args.path),
            loader: 'js',
          },
    );
  },
};

/**
 * `main.js` as CommonJS (`main.cjs`), which `bin.cjs` requires: Node's CommonJS loader starts it
 * faster than its ESM loader, which reads files through `fs/promises` and so first loads that
 * and readline (`pnpm bench cli-start`: 1.31 to 1.35 against 1.37 to 1.43, alternating, in one
 * sitting). Only the entry changes: its imports of the shared chunks become `require` of those
 * ES modules (the same instances the commands import), and the commands stay `import()`ed.
 */
async function commonJsEntry(): Promise<void> {
  await build({
    entryPoints: ['dist/main.js'],
    outfile: 'dist/main.cjs',
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    logLevel: 'warning',
    define: { 'import.meta.url': 'importMetaUrl' },
    banner: { js: "const importMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  });
  await rm('dist/main.js');
  await rm('dist/main.js.map');
}

export default defineConfig({
  // Each command is its own chunk, loaded only when that command runs: `notify --version` and
  // `notify --help` never load the SDK, zod or ora.
  entry: { main: 'src/main.ts' },
  format: 'esm',
  splitting: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
  esbuildPlugins: [standIns],
  onSuccess: commonJsEntry,
  // The parser is bundled into main.js: linking yargs' ~40 ESM files cost each start ~30 ms
  // (measured by `pnpm bench cli-start`), one file costs almost nothing. Its English messages
  // are its own defaults, so its locale files are not needed.
  noExternal: [
    /^yargs/,
    'cliui',
    'y18n',
    'escalade',
    'get-caller-file',
    'string-width',
    'strip-ansi',
    'ansi-regex',
    'get-east-asian-width',
    'emoji-regex',
    'wrap-ansi',
    'ansi-styles',
  ],
});
