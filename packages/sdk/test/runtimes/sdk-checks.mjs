// What every runtime's test does with the SDK against a real foxbell-server, as an app there
// would: a send, waitFor until sent_to_push, a ValidationError raised before any request, and a
// NotFoundError. Returns what it saw; each test compares it with the same expectation.
import { Foxbell, NotFoundError, ValidationError } from '../../dist/index.js';

export async function checkSdk(baseUrl, token, runtime) {
  const client = new Foxbell({ token, baseUrl });
  const sent = await client.send({ message: `from ${runtime}`, scene: 'rocket' });
  const record = await client.waitFor(sent.id, { until: 'sent_to_push', intervalMs: 50, timeoutMs: 10_000 });
  const invalid = await client.send({ message: '' }).catch((error) => error);
  const missing = await client.status('ntf_0000000000000000000000').catch((error) => error);
  return {
    status: record.status,
    validation: `${invalid.constructor.name}:${invalid.code}`,
    validationIsTyped: invalid instanceof ValidationError,
    notFound: `${missing.constructor.name}:${missing.code}`,
    notFoundIsTyped: missing instanceof NotFoundError,
  };
}
