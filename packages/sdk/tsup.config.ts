import { defineConfig } from 'tsup';
import { ENTRIES } from './entries.js';

// tsup's declaration build sets `baseUrl`, which TypeScript 6 deprecates; our own config does not use it.
const dts = { compilerOptions: { ignoreDeprecations: '6.0' } };

export default defineConfig([
  // ESM: dependencies stay external so an app shares one copy of zod and ky.
  { entry: ENTRIES, format: 'esm', dts, clean: true, sourcemap: true, target: 'node22' },
  // CJS: ky publishes ESM only, so it is bundled in; require() then works on every Node,
  // not only where require(esm) is enabled.
  { entry: ENTRIES, format: 'cjs', dts, sourcemap: true, target: 'node22', noExternal: ['ky'] },
]);
