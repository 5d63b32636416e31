import { describe, expect, it } from 'vitest';
import { createAccount, createToken, pushToken } from '../helpers.js';
import { startDeliveryServer } from '../simulated-apns.js';

const SENDS = 90;
const READERS = 6;

/** How far a status is along, as a reader may see it move; `dropped` is final. */
const PROGRESS: Record<string, number> = { accepted: 0, sent_to_push: 1, opened: 2, cleared: 2, dropped: 3 };

interface StatusRecord {
  id: string;
  status: string;
  reason?: string;
  destinations: { platform: string; state: string }[];
}

/** The invariants every status record holds, whenever it is read. */
function contradictions(record: StatusRecord): string[] {
  const found: string[] = [];
  if (record.status === 'accepted' && record.destinations.some((d) => d.state === 'accepted')) {
    found.push('a destination is accepted while the status is still accepted');
  }
  if (record.status === 'dropped' && record.reason === undefined) found.push('dropped without a reason');
  if (record.status !== 'dropped' && record.reason !== undefined) found.push('a reason without dropped');
  return found;
}

describe('a status record is read whole, never half-way through a delivery', () => {
  it('holds its invariants on every read while a worker delivers, and its status never goes backwards', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    // A device outside `auto`: each auto send skips it.
    const quiet = await server.request('POST', '/v1/devices', {
      token: account.key,
      json: { name: 'Desk iPad', platform: 'ios', push_token: pushToken(), in_auto: false },
    });
    expect(quiet.status, quiet.text).toBe(201);
    const watchToken = await createToken(server, account.key, { default_target: "Ana's Watch" });

    const ids: { id: string; token: string }[] = [];
    for (let index = 0; index < SENDS; index += 1) {
      // Within the rate limits of a token and of the account.
      if (index % 20 === 19) server.clock.advance(61_000);
      // Auto sends, sends to the token's default target, and sends to a device that does not exist
      // (dropped with a reason when routed).
      const kind = index % 3;
      const token = kind === 1 ? watchToken : account.token;
      const json: Record<string, unknown> = { message: `Build ${index}` };
      if (kind === 2) json.target = 'Nobody';
      const reply = await server.request('POST', '/v1/notifications', { token, json });
      expect(reply.status, reply.text).toBe(202);
      ids.push({ id: reply.body.id, token });
    }

    // One push at a time, so that each response is a commit of its own, and the readers all watch
    // the notifications being delivered now: each moves on once the one it reads has settled.
    const worker = server.addWorker(server.transport, { concurrency: 1 });
    let delivering = true;
    const deliver = (async () => {
      try {
        for (let tick = 0; tick < 2000 && (await server.store.nextDeliveryAt()) !== undefined; tick += 1) {
          await worker.tick();
        }
      } finally {
        delivering = false;
      }
    })();

    const problems: string[] = [];
    let reads = 0;
    const read = async () => {
      const seen = new Map<string, number>();
      let cursor = 0;
      while (cursor < ids.length) {
        const { id, token } = ids[cursor] as (typeof ids)[number];
        const reply = await server.request('GET', `/v1/notifications/${id}/status`, { token });
        expect(reply.status, reply.text).toBe(200);
        reads += 1;
        const record = reply.body as StatusRecord;
        for (const problem of contradictions(record)) problems.push(`${problem}: ${reply.text}`);
        const progress = PROGRESS[record.status] as number;
        if (progress < (seen.get(id) ?? 0)) problems.push(`status went backwards: ${reply.text}`);
        seen.set(id, progress);
        if (record.status !== 'accepted' || !delivering) cursor += 1;
      }
    };
    await Promise.all([deliver, ...Array.from({ length: READERS }, read)]);

    expect(problems.slice(0, 5)).toEqual([]);
    // Everything was delivered or dropped: the readers watched a whole delivery.
    expect(await server.store.nextDeliveryAt()).toBeUndefined();
    const final = await Promise.all(
      ids.map(
        async ({ id, token }) =>
          (await server.request('GET', `/v1/notifications/${id}/status`, { token })).body,
      ),
    );
    expect(final.filter((record) => record.status === 'sent_to_push')).toHaveLength((SENDS / 3) * 2);
    expect(
      final.filter((record) => record.status === 'dropped' && record.reason === 'no_matching_device'),
    ).toHaveLength(SENDS / 3);
    expect(reads).toBeGreaterThan(SENDS * 2);
  }, 60_000);
});
