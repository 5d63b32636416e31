import { call } from '@foxbell/test-support';
import { expect } from 'vitest';

/** What `runtimes/sdk-checks.mjs` sees in every runtime. */
export const SEEN = {
  status: 'sent_to_push',
  validation: 'ValidationError:invalid_field',
  validationIsTyped: true,
  notFound: 'NotFoundError:not_found',
  notFoundIsTyped: true,
};

/** What the runtime sent reached the simulated iPhone. */
export async function expectDelivered(serverUrl: string, accountKey: string, runtime: string): Promise<void> {
  const inbox = await call(serverUrl, 'GET', '/v1/inbox', { token: accountKey });
  expect(inbox.body.items.map((item: { message: string }) => item.message)).toEqual([`from ${runtime}`]);
}
