// Run by each runtime (Node, Bun, Deno) against a real foxbell-server. Prints one JSON line; the
// test reads it.
import { checkSdk } from './sdk-checks.mjs';

const [baseUrl, token, runtime] = globalThis.Deno ? Deno.args : process.argv.slice(2);
console.log(JSON.stringify(await checkSdk(baseUrl, token, runtime)));
