import { defineConfig } from 'tsup';

export default defineConfig({
  // Each command is its own chunk, loaded only when that command runs: `notify --version` and
  // `notify --help` never load the SDK, zod or ora.
  entry: { main: 'src/main.ts' },
  format: 'esm',
  splitting: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
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
