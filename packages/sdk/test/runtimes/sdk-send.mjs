// Sends one notification with the SDK as an app would (NOTIFY_TOKEN and NOTIFY_BASE_URL from the
// environment) and prints its id: the proxy test runs it with the proxy variables set.
import { Foxbell } from '@foxbell/sdk';

const sent = await new Foxbell({ maxRetries: 0 }).send({ message: process.argv[2] ?? 'through a proxy' });
console.log(sent.id);
