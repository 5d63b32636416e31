// The SDK's size as an app ships it: everything `@foxbell/sdk` exports, bundled with its
// dependencies (ky, zod/mini), minified and gzipped. Baseline: ky alone, bundled the same way.
// Before the last line it also sizes the parts the SDK cannot do without, bundled the same way,
// so a run shows how much of the budget is ours to spend.
import { BUDGET_KB, bundledBytes } from '../packages/sdk/scripts/bundle-size.js';

const kb = (bytes: number) => Math.round((bytes / 1024) * 100) / 100;

const sdk = await bundledBytes("export * from '@foxbell/sdk';");
const ky = await bundledBytes("export { default } from 'ky';");
// ky as the client uses it, and the zod/mini kinds the contract's schemas are made of.
const dependencies = await bundledBytes(`
  import ky from 'ky';
  import * as z from 'zod/mini';
  export const client = ky.create({ retry: 0 });
  export const strict = z.strictObject({
    text: z.string().check(z.refine((value) => value.length > 0)),
    count: z._default(z.optional(z.int().check(z.minimum(1), z.maximum(9))), 3),
    choice: z.enum(['a', 'b']),
    custom: z.custom((value) => value !== null),
  });
  export const loose = z.looseObject({ list: z.array(z.string()), maybe: z.optional(z.string()) });
`);
// The same, with the rules the SDK checks before a request leaves and the shapes it reads responses by.
const withRules = await bundledBytes(`
  import ky from 'ky';
  export const client = ky.create({ retry: 0 });
  export {
    checkSend, sendResponseSchema, statusRecordSchema, deviceListSchema,
    catalogSceneSchema, errorBodySchema,
  } from '@foxbell/sdk/contract';
`);

console.log(
  `@foxbell/sdk with ky and zod/mini: ${kb(sdk.raw)} KB minified, ${kb(sdk.gzip)} KB min+gzip (goal: at most ${BUDGET_KB})`,
);
console.log(`ky alone:                          ${kb(ky.raw)} KB minified, ${kb(ky.gzip)} KB min+gzip`);
console.log(
  `ky and the zod/mini it needs:      ${kb(dependencies.raw)} KB minified, ${kb(dependencies.gzip)} KB min+gzip`,
);
console.log(
  `those and the contract's rules:    ${kb(withRules.raw)} KB minified, ${kb(withRules.gzip)} KB min+gzip`,
);
console.log(
  `left of the ${BUDGET_KB} KB for the client (errors, retries, calls): ${kb(BUDGET_KB * 1024 - withRules.gzip)} KB; it takes ${kb(sdk.gzip - withRules.gzip)} KB`,
);
console.log(
  JSON.stringify({
    bench: 'sdk-size',
    value: kb(sdk.gzip),
    unit: 'KB min+gzip',
    baseline: kb(ky.gzip),
    ratio: Math.round((sdk.gzip / ky.gzip) * 100) / 100,
  }),
);
