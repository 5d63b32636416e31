import { defineConfig } from 'tsup';
import { ENTRIES } from './entries.js';

export default defineConfig([
  // ESM: dependencies stay external so an app shares one copy of zod and ky. It empties `dist`
  // but for the declarations, which the third build writes meanwhile (and empties of its own).
  { entry: ENTRIES, format: 'esm', clean: ['!**/*.d.{ts,cts,mts}'], sourcemap: true, target: 'node22' },
  // CJS: ky publishes ESM only, so it is bundled in; require() then works on every Node,
  // not only where require(esm) is enabled.
  { entry: ENTRIES, format: 'cjs', sourcemap: true, target: 'node22', noExternal: ['ky'] },
  // The declarations, from one TypeScript build written out twice: `.d.ts` for `import`, `.d.cts`
  // for `require`, the same types (a build per format ran TypeScript twice, most of `pnpm build`'s
  // time). tsup's declaration build sets `baseUrl`, which TypeScript 6 deprecates; our own config
  // does not use it.
  {
    entry: ENTRIES,
    format: ['esm', 'cjs'],
    clean: true,
    dts: { only: true, compilerOptions: { ignoreDeprecations: '6.0' } },
  },
]);
