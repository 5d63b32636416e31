import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { PushProvider } from '../../src/delivery/provider.js';
import type { PushDestination, PushOutcome, PushTransport } from '../../src/delivery/transport.js';
import { startDeliveryServer } from '../delivery-helpers.js';
import { ADMIN_KEY, createToken, expectError, pushToken } from '../helpers.js';
import { apiProviders } from '../providers.js';

/**
 * What docs/architecture.md says adding a push provider takes, held by a provider that exists only
 * here: it records what it is handed. It is registered in one line (the `providers` below), and
 * nothing of routing, the worker, the routes or the stores knows it: a device registers with it,
 * a send reaches it, and its own refusal pauses only its own pushes.
 */
function recorderProvider(answer: () => PushOutcome) {
  const handed: PushDestination[] = [];
  const transport: PushTransport = {
    async push(destination) {
      handed.push(destination);
      return answer();
    },
    async close() {},
  };
  const provider: PushProvider = {
    id: 'recorder',
    registration: {
      field: 'recorder',
      schema: z.strictObject({ inbox: z.string().regex(/^[a-z]{1,16}$/, 'must be 1-16 letters a-z') }),
      address: (value: { inbox: string }) => ({
        provider: 'recorder',
        key: value.inbox,
        data: { kept: true },
      }),
      shownAs: 'recorder',
    },
    countsUnread: true,
    openTransport: async () => ({ transport }),
  };
  return { provider, handed, transport };
}

const ACCEPTED: PushOutcome = {
  verdict: 'accepted',
  status: 200,
  deactivateDevice: null,
  pauseCredential: false,
};
const KEY_REFUSED: PushOutcome = {
  verdict: 'retry',
  status: 403,
  reason: 'CredentialRefused',
  deactivateDevice: null,
  pauseCredential: true,
};

async function recorderServer(answer: () => PushOutcome = () => ACCEPTED) {
  const recorder = recorderProvider(answer);
  const server = await startDeliveryServer({
    providers: (store, clock) => [...apiProviders(store, clock), recorder.provider],
  });
  const worker = server.addWorker(server.transport, {
    transports: { apns: server.transport, recorder: recorder.transport },
    unreadFor: ['recorder'],
  });
  const account = await server.request('POST', '/v1/accounts', { token: ADMIN_KEY, json: { name: 'Rec' } });
  const key: string = account.body.key;
  const token = await createToken(server, key, { name: 'CI' });
  return { server, worker, key, token, ...recorder };
}

describe('a push provider defined only in the tests', () => {
  it('registers a device by its own member, and is shown by its own name', async () => {
    const { server, key } = await recorderServer();
    const made = await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'Desk', platform: 'ios', recorder: { inbox: 'alice' } },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ name: 'Desk', transport: 'recorder', active: true, stale: false });
    // Its rule is its own, and the member is named in the refusal.
    const bad = await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'Desk 2', platform: 'ios', recorder: { inbox: 'Alice!' } },
    });
    expectError(bad, 400, 'invalid_field', 'recorder.inbox');
    // A device is reached one way.
    const both = await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'Desk 3', platform: 'ios', push_token: pushToken(), recorder: { inbox: 'bob' } },
    });
    expectError(both, 400, 'invalid_field', 'recorder');
    // The interface document names the member too, and the transport.
    const { body: document } = await server.request('GET', '/openapi.json');
    const registration = document.paths['/v1/devices'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(registration.properties)).toContain('recorder');
    expect(document.components.schemas.Device.properties.transport.enum).toEqual(['web_push', 'recorder']);
  });

  it('delivers a send end to end: the destination carries its address and the unread count', async () => {
    const { server, worker, key, token, handed } = await recorderServer();
    await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'Desk', platform: 'ios', recorder: { inbox: 'alice' } },
    });
    const sent = await server.request('POST', '/v1/notifications', {
      token,
      json: { message: 'Build #812 passed', title: 'CI' },
    });
    expect(sent.status, sent.text).toBe(202);
    await worker.tick();
    expect(handed).toHaveLength(1);
    expect(handed[0]).toMatchObject({
      notificationId: sent.body.id,
      platform: 'ios',
      address: { provider: 'recorder', key: 'alice', data: { kept: true } },
      senderName: 'CI',
      notification: { message: 'Build #812 passed', title: 'CI' },
      unread: 1,
    });
    const status = await server.request('GET', `/v1/notifications/${sent.body.id}/status`, { token });
    expect(status.body).toMatchObject({
      status: 'sent_to_push',
      destinations: [{ state: 'accepted', push_status: 200 }],
    });
  });

  it("pauses only its own pushes when its push service refuses the credential: APNs' go on", async () => {
    const { server, worker, key, token, handed } = await recorderServer(() => KEY_REFUSED);
    await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'Desk', platform: 'ios', recorder: { inbox: 'alice' } },
    });
    const first = await server.request('POST', '/v1/notifications', { token, json: { message: 'one' } });
    await worker.tick();
    expect(handed).toHaveLength(1);
    // An APNs device added after the refusal gets the next send; the recorder's waits its pause.
    await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'iPhone', platform: 'ios', push_token: pushToken() },
    });
    const second = await server.request('POST', '/v1/notifications', {
      token,
      json: { message: 'two', target: 'iPhone' },
    });
    const third = await server.request('POST', '/v1/notifications', {
      token,
      json: { message: 'three', target: 'Desk' },
    });
    server.clock.advance(5_000);
    await worker.tick();
    expect(server.sim.received().map((push) => push.status)).toEqual([200]);
    expect(handed).toHaveLength(1);
    const states = async (id: string) =>
      (await server.request('GET', `/v1/notifications/${id}/status`, { token })).body.destinations.map(
        (d: { state: string }) => d.state,
      );
    expect(await states(second.body.id)).toEqual(['accepted']);
    expect(await states(first.body.id)).toEqual(['pending']);
    expect(await states(third.body.id)).toEqual(['pending']);
  });
});
