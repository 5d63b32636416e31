// Run by another runtime (Bun, Deno…) against a real foxbell-server: the SDK as an app there
// would use it. Prints one JSON line; the test reads it.
import { Foxbell, NotFoundError, ValidationError } from '../../../sdk/dist/index.js';

const [baseUrl, token, runtime] = globalThis.Deno ? Deno.args : process.argv.slice(2);
const client = new Foxbell({ token, baseUrl });
const sent = await client.send({ message: `from ${runtime}`, scene: 'rocket' });
const record = await client.waitFor(sent.id, { until: 'sent_to_push', intervalMs: 50, timeoutMs: 10_000 });
const codeOf = async (call) => {
  try {
    await call();
    return 'no error';
  } catch (error) {
    return `${error.constructor.name}:${error.code}`;
  }
};
console.log(
  JSON.stringify({
    status: record.status,
    validation: await codeOf(() => client.send({ message: '' })),
    validationIsTyped: (await client.send({ message: '' }).catch((e) => e)) instanceof ValidationError,
    notFound: await codeOf(() => client.status('ntf_0000000000000000000000')),
    notFoundIsTyped:
      (await client.status('ntf_0000000000000000000000').catch((e) => e)) instanceof NotFoundError,
  }),
);
