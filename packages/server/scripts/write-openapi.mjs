// Writes the interface's OpenAPI document, made from the built server, to the file given.
// `pnpm openapi` at the root runs it after a build; a test fails while the committed copy is stale.
import { writeFile } from 'node:fs/promises';
import { describedProviders, openApiDocument } from '../dist/index.js';

const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: write-openapi.mjs FILE');
await writeFile(file, `${JSON.stringify(openApiDocument(describedProviders()), null, 2)}\n`);
