/**
 * The SDK's entry points, each the source of one export of package.json (`index` is `.`,
 * `contract/index` is `./contract`): tsup builds `dist/` from them, and the fast tier
 * (vitest.config.ts) imports the package from them, so it needs no build.
 */
export const ENTRIES = {
  index: 'src/index.ts',
  'contract/index': 'src/contract/index.ts',
  'contract/values': 'src/contract/values.ts',
  // Not part of the SDK's surface: the share of the rules only Foxbell's own server imports.
  'server-contract/index': 'src/contract/server-contract.ts',
  'testing/index': 'src/testing/index.ts',
  'device/index': 'src/device.ts',
};

/** The specifier an entry is imported by: `@foxbell/sdk`, `@foxbell/sdk/contract`, and so on. */
export const specifierOf = (entry: string): string => `@foxbell/sdk${`/${entry}`.replace(/\/?index$/, '')}`;
