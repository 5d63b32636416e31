import { describe, expect, it } from 'vitest';
import { expectError, type Reply, send } from '../../helpers.js';
import { ADMIN, startProcess } from '../../processes.js';
import { newTestSchema, TEST_DATABASE_URL } from '../../test-database.js';

/**
 * The brakes on link requests, unknown credentials and changes are counted in each API process's
 * memory, not in the database: behind a proxy that spreads one client over N processes they let N
 * times as much through. docs/security.md and docs/deploy.md state that factor; this holds it,
 * with two processes on one schema, one client address, and requests turn by turn.
 */

/** Sends `request` to each API in turn until every one has rejected with 429: what each took. */
async function takenUntilAllRejected(
  apis: string[],
  request: (url: string, n: number) => Promise<Reply>,
  taken: number,
  scope: string,
) {
  const accepted = apis.map(() => 0);
  const refused = apis.map(() => false);
  for (let n = 0; !refused.every(Boolean); n += 1) {
    if (n > 1000) throw new Error('no refusal after 1,000 requests');
    const at = n % apis.length;
    const reply = await request(apis[at] as string, n);
    if (reply.status === taken) accepted[at] = (accepted[at] as number) + 1;
    else {
      const body = expectError(reply, 429, 'rate_limited');
      expect(body.error.details.scope).toBe(scope);
      refused[at] = true;
    }
  }
  return accepted;
}

describe('the brakes counted in each process: N API processes let N times as much through', () => {
  it('two processes on one PostgreSQL: 2 × 30 link requests, 2 × 30 unknown credentials, 2 × 60 changes of one key', async () => {
    const schema = newTestSchema();
    const args = ['--database', TEST_DATABASE_URL, '--database-schema', schema, '--log-level', 'warn'];
    const env = { FOXBELL_ADMIN_KEY: ADMIN };
    const [first, second] = await Promise.all([
      startProcess([...args, '--no-workers'], env),
      startProcess([...args, '--no-workers'], env),
    ]);
    const apis = [first.url, second.url];

    let installs = 0;
    const links = await takenUntilAllRejected(
      apis,
      (url) => {
        installs += 1;
        return send(url, 'POST', '/v1/link-requests', {
          json: {
            device_id: `per-process-${installs}`,
            name: 'Phone',
            platform: 'ios',
            push_token: installs.toString(16).padStart(64, 'a'),
          },
        });
      },
      201,
      'link_requests',
    );
    expect(links).toEqual([30, 30]);

    // The account was made through the first process: its own writes there are none of the 60.
    const account = await send(first.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const made: string[][] = apis.map(() => []);
    const changes = await takenUntilAllRejected(
      apis,
      async (url, n) => {
        const at = n % apis.length;
        // Made and revoked by turns in each process, so live tokens stay under 50.
        const mine = made[at] as string[];
        const last = mine.at(-1);
        if (last !== undefined) {
          const revoked = await send(url, 'DELETE', `/v1/tokens/${last}`, { token: account.body.key });
          if (revoked.status === 204) mine.pop();
          return revoked;
        }
        const created = await send(url, 'POST', '/v1/tokens', { token: account.body.key, json: {} });
        if (created.status === 201) mine.push(created.body.id);
        return created.status === 201 ? { ...created, status: 204 } : created;
      },
      204,
      'account_changes',
    );
    expect(changes).toEqual([60, 60]);

    // Last: past it, this address's every credential is rejected for the rest of the minute.
    const unknown = `fox_send_${'Unknown0'.repeat(4)}`;
    const guesses = await takenUntilAllRejected(
      apis,
      (url) => send(url, 'GET', '/v1/scenes', { token: unknown }),
      401,
      'failed_credentials',
    );
    expect(guesses).toEqual([30, 30]);
  });
});
