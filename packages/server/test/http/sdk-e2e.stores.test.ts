import { ApiError, Foxbell, UndeliverableError, ValidationError } from '@foxbell/sdk';
import { describe, expect, it } from 'vitest';
import { createAccount, routeQueued, serverForAll } from '../helpers.js';
import { startDeliveryServer } from '../simulated-apns.js';

/** The published SDK against the real server over HTTP: the two halves of one contract. */
describe('the SDK against the server', () => {
  // Each test sends with an account of its own, and none moves the clock.
  const shared = serverForAll();
  async function setup() {
    const server = shared();
    const account = await createAccount(server);
    const client = new Foxbell({ token: account.token, baseUrl: server.url });
    return { server, account, client };
  }

  it('sends, reads the status, and sees the rate-limit headers', async () => {
    const { client } = await setup();
    const sent = await client.send({
      message: 'Build passed',
      scene: 'rocket',
      scene_params: { color: 'green' },
    });
    expect(sent).toMatchObject({
      id: expect.stringMatching(/^ntf_/),
      status: 'accepted',
      request_id: expect.stringMatching(/^req_/),
      rate_limit: { limit: 10_000, remaining: 9_999, reset: 1_796_083_200 },
    });
    const status = await client.status(sent.id as string);
    expect(status).toMatchObject({ id: sent.id, status: 'accepted', destinations: [], handled: [] });
  });

  it('waits until someone opened the notification', async () => {
    const { server, account, client } = await setup();
    const { id } = await client.send({ message: 'hi' });
    if (id === null) throw new Error('the 202 had no id');
    const waiting = client.waitFor(id, { until: 'opened', intervalMs: 20, timeoutMs: 5_000 });
    await routeQueued(server);
    await server.request('POST', `/v1/notifications/${id}/events`, {
      token: account.key,
      json: { device_id: account.devices[0]?.id, action: 'opened' },
    });
    expect((await waiting).status).toBe('opened');
  });

  it('makes a retry with the same idempotency key a replay of the first send', async () => {
    const { client } = await setup();
    const first = await client.send({ message: 'once' }, { idempotencyKey: 'deploy-7' });
    const again = await client.send({ message: 'once' }, { idempotencyKey: 'deploy-7' });
    expect(again.id).toBe(first.id);
  });

  it('reads the catalog and the device names', async () => {
    const { client } = await setup();
    const catalog = await client.scenes();
    expect(catalog.scenes.map((scene) => scene.id)).toContain('garage');
    expect(await client.devices()).toEqual([
      { name: "Ana's iPhone", platform: 'ios' },
      { name: "Ana's Watch", platform: 'watchos' },
      { name: "Ana's Vision Pro", platform: 'visionos' },
    ]);
  });

  it('builds a URL the URL-token endpoint sends from, with every awkward character intact', async () => {
    const { server, client } = await setup();
    const message = 'a b & c = d # e + f % g ✓\nline two';
    const url = client.sendUrl({
      message,
      title: 'T&T',
      scene: 'rocket',
      scene_params: { color: 'red', countdown: 4 },
      level: 'passive',
    });
    const response = await fetch(url);
    expect(response.status).toBe(202);
    const { id } = (await response.json()) as { id: string };
    expect((await server.store.getNotification(id))?.notification).toMatchObject({
      message,
      title: 'T&T',
      scene_params: { color: 'red', countdown: 4 },
      level: 'passive',
    });
  });

  it('rejects before sending what the server would reject, with the same code and field', async () => {
    const { client } = await setup();
    const error = await client.send({ message: 'hi', ttl: 0 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).field).toBe('ttl');
  });

  it('turns the server errors into ApiError with the code, status and request id', async () => {
    const { server, client } = await setup();
    const error = await client.send({ message: 'hi', scene: 'disco' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_scene', status: 400, field: 'scene' });
    const stranger = new Foxbell({ token: `fox_send_${'Q'.repeat(32)}`, baseUrl: server.url });
    await expect(stranger.send({ message: 'hi' })).rejects.toMatchObject({
      code: 'unauthorized',
      status: 401,
    });
  });

  it('sends through the server, its worker and HTTP/2 to the APNs simulator, and waits for sent_to_push', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const client = new Foxbell({ token: account.token, baseUrl: server.url });
    const sent = await client.send({ message: 'Deployed', scene: 'fireworks', scene_params: { bursts: 5 } });
    const waiting = client.waitFor(sent.id as string, {
      until: 'sent_to_push',
      intervalMs: 20,
      timeoutMs: 5_000,
    });
    await server.worker.tick();
    expect((await waiting).status).toBe('sent_to_push');
    // sent_to_push means the push service took it for one device at least: the other two responses
    // may still be on their way to the store, so their states are polled for, not read once.
    await expect
      .poll(async () =>
        (await client.status(sent.id as string)).destinations.map((d) => [
          d.platform,
          d.state,
          d.push_status,
        ]),
      )
      .toEqual([
        ['ios', 'accepted', 200],
        ['watchos', 'accepted', 200],
        ['visionos', 'accepted', 200],
      ]);
    const payloads = server.sim.received().map((push) => (push.payload as { foxbell: unknown }).foxbell);
    expect(payloads).toHaveLength(3);
    expect(payloads[0]).toMatchObject({ id: sent.id, scene: 'fireworks', scene_params: { bursts: 5 } });
  });

  it('rejects waitFor at once with UndeliverableError, carrying the record, when no device matches the target', async () => {
    const server = await startDeliveryServer();
    const account = await createAccount(server);
    const client = new Foxbell({ token: account.token, baseUrl: server.url });
    const sent = await client.send({ message: 'to nobody', target: 'Nobody' });
    const waiting = client.waitFor(sent.id as string, {
      until: 'sent_to_push',
      intervalMs: 20,
      timeoutMs: 5_000,
    });
    await server.worker.tick();
    const error = await waiting.then(
      () => expect.unreachable('waitFor resolved for a dropped notification'),
      (reason: unknown) => reason,
    );
    expect(error).toBeInstanceOf(UndeliverableError);
    expect(error).toMatchObject({
      code: 'undeliverable',
      record: { status: 'dropped', reason: 'no_matching_device', destinations: [] },
    });
  });
});
