import { defineConfig } from 'tsup';

const entry = {
  index: 'src/index.ts',
  'contract/index': 'src/contract/index.ts',
  'contract/values': 'src/contract/values.ts',
  // Not part of the SDK's surface: the share of the rules only Foxbell's own server imports.
  'server-contract/index': 'src/contract/server-contract.ts',
  'testing/index': 'src/testing/index.ts',
  'device/index': 'src/device.ts',
};
// tsup's declaration build sets `baseUrl`, which TypeScript 6 deprecates; our own config does not use it.
const dts = { compilerOptions: { ignoreDeprecations: '6.0' } };

export default defineConfig([
  // ESM: dependencies stay external so an app shares one copy of zod and ky.
  { entry, format: 'esm', dts, clean: true, sourcemap: true, target: 'node22' },
  // CJS: ky publishes ESM only, so it is bundled in; require() then works on every Node,
  // not only where require(esm) is enabled.
  { entry, format: 'cjs', dts, sourcemap: true, target: 'node22', noExternal: ['ky'] },
]);
