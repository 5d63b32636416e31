import { defineConfig } from 'tsup';

export default defineConfig({
  // Each command is its own chunk, loaded only when that command runs: `notify --version` and
  // `notify --help` never load the SDK, zod or ora.
  entry: { main: 'src/main.ts' },
  format: 'esm',
  splitting: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
});
