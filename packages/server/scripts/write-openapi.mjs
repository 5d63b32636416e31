// Writes the interface's OpenAPI document to the file given, as the built server serves it at
// GET /openapi.json: the app is built (on a database in memory) and asked, so the document holds
// exactly the routes it registers. `pnpm openapi` at the root runs it after a build; a test fails
// while the committed copy is stale.
import { writeFile } from 'node:fs/promises';
import { buildApp, describedProviders, openSqliteStore } from '../dist/index.js';

const [file] = process.argv.slice(2);
if (!file) throw new Error('usage: write-openapi.mjs FILE');
const store = openSqliteStore({ dataDir: ':memory:' });
const app = buildApp({ store, providers: await describedProviders() });
try {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' });
  if (response.statusCode !== 200) throw new Error(`GET /openapi.json responded ${response.statusCode}`);
  await writeFile(file, `${JSON.stringify(response.json(), null, 2)}\n`);
} finally {
  await app.close();
  await store.close();
}
