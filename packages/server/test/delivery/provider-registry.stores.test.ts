import { describe, expect, it, onTestFinished } from 'vitest';
import { readConfig, usageFor } from '../../src/config/server-settings.js';
import { PROVIDERS } from '../../src/delivery/providers.js';
import { type PushProviders, pushProviders } from '../../src/main/push-providers.js';
import { Metrics } from '../../src/metrics/metrics.js';
import { ADMIN_KEY, createToken, expectError, pushToken } from '../helpers.js';
import { startDeliveryServer } from '../simulated-apns.js';
import { testRecorder } from './test-recorder/entry.js';
import type { TestRecorderTransport } from './test-recorder/provider.js';

/**
 * What docs/architecture.md says adding a push provider takes, held by one that exists only in the
 * tests (./test-recorder/): its folder, and this one line in a registry. Its settings are read with the
 * server's, a process makes it and opens its transport, the metrics and the interface's document
 * name it, and nothing of routing, the worker, the routes or the stores knows it: a device
 * registers with it, a send reaches it, and its own error pauses only its own pushes.
 */
const REGISTRY = { ...PROVIDERS, testRecorder };
const IDS = Object.values(REGISTRY).map((entry) => entry.id);

/**
 * The real app and worker with REGISTRY's providers, each made from the settings `argv` and `env`
 * give, as a foxbell-server process makes them (main/push-providers.ts): APNs with the simulator the
 * process runs, Web Push, and the recorder.
 */
async function recorderServer(settings: { argv?: string[]; env?: NodeJS.ProcessEnv } = {}) {
  const read = readConfig(settings.argv ?? [], settings.env ?? {}, REGISTRY);
  if (read.ok !== true) throw new Error(`settings refused: ${JSON.stringify(read)}`);
  let push: PushProviders | undefined;
  const server = await startDeliveryServer({
    providers: async (store, clock) => {
      push = await pushProviders(read.config, store, clock, REGISTRY);
      return push.providers;
    },
    metrics: (store, clock) => new Metrics(store, clock, IDS),
  });
  const made = push as PushProviders;
  onTestFinished(() => made.close());
  const { transports } = await made.openTransports(() => {});
  const worker = server.addWorker(server.transport, {
    transports,
    unreadFor: made.providers.filter((provider) => provider.countsUnread).map((provider) => provider.id),
    ...(server.metrics ? { metrics: server.metrics } : {}),
  });
  const account = await server.request('POST', '/v1/accounts', { token: ADMIN_KEY, json: { name: 'Rec' } });
  const key: string = account.body.key;
  const token = await createToken(server, key, { name: 'CI' });
  const handed = (transports['test-recorder'] as TestRecorderTransport).handed;
  return { server, worker, key, token, handed, simulator: made.simulator };
}

describe('a push provider defined only in the tests', () => {
  it("has its settings read with the server's: its flag, its variable, its default and its check", () => {
    const usage = usageFor(REGISTRY);
    expect(usage.replace(/\s+/g, ' ')).toContain(
      '--test-recorder-answer WHAT what the test recorder answers every push (FOXBELL_TEST_RECORDER_ANSWER, default accepted)',
    );
    expect(readConfig([], {}, REGISTRY)).toMatchObject({
      ok: true,
      config: { testRecorder: { answer: 'accepted' } },
    });
    expect(
      readConfig(
        ['--test-recorder-answer', 'credential-refused'],
        { FOXBELL_TEST_RECORDER_ANSWER: 'accepted' },
        REGISTRY,
      ),
    ).toMatchObject({ ok: true, config: { testRecorder: { answer: 'credential-refused' } } });
    expect(readConfig([], { FOXBELL_TEST_RECORDER_ANSWER: 'maybe' }, REGISTRY)).toEqual({
      ok: false,
      problems: [
        '--test-recorder-answer (FOXBELL_TEST_RECORDER_ANSWER) must be one of accepted, credential-refused, not "maybe"',
      ],
    });
    // The product's server knows nothing of it.
    expect(readConfig(['--test-recorder-answer', 'accepted'], {})).toMatchObject({ ok: false });
  });

  it('registers a device by its own member, and is shown by its own name, in the document too', async () => {
    const { server, key } = await recorderServer();
    const made = await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'Desk', platform: 'ios', test_recorder: { inbox: 'alice' } },
    });
    expect(made.status, made.text).toBe(201);
    expect(made.body).toMatchObject({ name: 'Desk', transport: 'test_recorder', active: true, stale: false });
    // Its rule is its own, and the member is named in the error.
    const bad = await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'Desk 2', platform: 'ios', test_recorder: { inbox: 'Alice!' } },
    });
    expectError(bad, 400, 'invalid_field', 'test_recorder.inbox');
    // A device is reached one way.
    const both = await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'Desk 3', platform: 'ios', push_token: pushToken(), test_recorder: { inbox: 'bob' } },
    });
    expectError(both, 400, 'invalid_field', 'test_recorder');
    // The interface document names the member, and the transport a device shows.
    const { body: document } = await server.request('GET', '/openapi.json');
    const registration = document.paths['/v1/devices'].post.requestBody.content['application/json'].schema;
    expect(Object.keys(registration.properties)).toContain('test_recorder');
    const { schemas } = document.components;
    expect(schemas.Device.properties.transport.enum).toEqual(
      Object.values(REGISTRY).flatMap((entry) => entry.shownAs ?? []),
    );
    expect(schemas.Device.properties.transport.enum).toContain('test_recorder');
  });

  it('delivers a send end to end: the destination carries its address and the unread count, and is counted', async () => {
    const { server, worker, key, token, handed } = await recorderServer();
    await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'Desk', platform: 'ios', test_recorder: { inbox: 'alice' } },
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
      address: { provider: 'test-recorder', key: 'alice', data: { kept: true } },
      senderName: 'CI',
      notification: { message: 'Build #812 passed', title: 'CI' },
      unread: 1,
    });
    const status = await server.request('GET', `/v1/notifications/${sent.body.id}/status`, { token });
    expect(status.body).toMatchObject({
      status: 'sent_to_push',
      destinations: [{ state: 'accepted', push_status: 200 }],
    });
    const pushes = await server.metrics?.registry.getSingleMetricAsString('foxbell_pushes_total');
    expect(pushes).toContain(`by provider (${IDS.join(', ')})`);
    expect(IDS.at(-1)).toBe('test-recorder');
    expect(pushes).toContain('foxbell_pushes_total{provider="test-recorder",status="200"} 1');
  });

  it("pauses only its own pushes when its push service rejects the credential: APNs' go on", async () => {
    const { server, worker, key, token, handed, simulator } = await recorderServer({
      env: { FOXBELL_TEST_RECORDER_ANSWER: 'credential-refused' },
    });
    await server.request('POST', '/v1/devices', {
      token: key,
      json: { name: 'Desk', platform: 'ios', test_recorder: { inbox: 'alice' } },
    });
    const first = await server.request('POST', '/v1/notifications', { token, json: { message: 'one' } });
    await worker.tick();
    expect(handed).toHaveLength(1);
    // An APNs device added after the error gets the next send; the recorder's waits its pause.
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
    // APNs' push went to the simulator the process runs in its place.
    expect(simulator?.running?.received().map((push) => push.status)).toEqual([200]);
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
