import { describe, expect, it } from 'vitest';
import { createAccount, createToken, expectError, pushToken } from '../helpers.js';
import { deliveryServerForAll } from '../simulated-apns.js';

/** Names every plain object has through its prototype. */
const INHERITED = ['toString', 'constructor', 'valueOf', '__proto__', 'hasOwnProperty', 'isPrototypeOf'];

describe('user strings are looked up as own keys only: names an object inherits mean nothing special', () => {
  // Every test sends with an account of its own, delivers what it sent, and leaves the clock.
  const shared = deliveryServerForAll();
  it.each(INHERITED)(
    'a device named %s can be a target, named by a send or by a token default',
    async (name) => {
      const server = shared();
      const account = await createAccount(server);
      const device = await server.request('POST', '/v1/devices', {
        token: account.key,
        json: { name, platform: 'ios', push_token: pushToken(), in_auto: false },
      });
      expect(device.status, device.text).toBe(201);
      expect(device.body.name).toBe(name);
      const renamed = await server.request('PATCH', `/v1/devices/${device.body.id}`, {
        token: account.key,
        json: { name },
      });
      expect([renamed.status, renamed.body.name]).toEqual([200, name]);

      const byDefault = await createToken(server, account.key, { name, default_target: name });
      for (const [token, json] of [
        [account.token, { message: 'to the named device', target: name }],
        [byDefault, { message: 'to the default target' }],
      ] as const) {
        const sent = await server.request('POST', '/v1/notifications', { token, json });
        expect(sent.status, sent.text).toBe(202);
        await server.worker.tick();
        const record = await server.request('GET', `/v1/notifications/${sent.body.id}/status`, { token });
        expect([record.body.status, record.body.destinations.length], record.text).toEqual([
          'sent_to_push',
          1,
        ]);
      }
      const tokens = await server.request('GET', '/v1/tokens', { token: account.key });
      expect(tokens.body.tokens.map((t: { name: string }) => t.name)).toContain(name);
    },
  );

  it.each(INHERITED)('a target %s that names no device is dropped with no_matching_device', async (name) => {
    const server = shared();
    const account = await createAccount(server);
    const sent = await server.request('POST', '/v1/notifications', {
      token: account.token,
      json: { message: 'nobody', target: name },
    });
    expect(sent.status, sent.text).toBe(202);
    await server.worker.tick();
    const record = await server.request('GET', `/v1/notifications/${sent.body.id}/status`, {
      token: account.token,
    });
    expect([record.body.status, record.body.reason]).toEqual(['dropped', 'no_matching_device']);
  });

  it.each(INHERITED)(
    'a scene named %s is not in the catalog, nor a scene parameter of that name',
    async (name) => {
      const server = shared();
      const account = await createAccount(server);
      const post = (json: unknown) =>
        server.request('POST', '/v1/notifications', { token: account.token, json });
      // A scene id that breaks the id pattern may be invalid_field (spec-decisions 2).
      const sceneCode = /^[a-z][a-z0-9-]*$/.test(name) ? 'invalid_scene' : 'invalid_field';
      expectError(await post({ message: 'a', scene: name }), 400, sceneCode, 'scene');
      const param = `{"message":"a","scene":"rocket","scene_params":{${JSON.stringify(name)}:"red"}}`;
      const json = await server.request('POST', '/v1/notifications', {
        token: account.token,
        body: param,
        contentType: 'application/json',
      });
      expectError(json, 400, 'invalid_scene_param', `scene_params.${name}`);
      const query = await server.request(
        'GET',
        `/v1/send/${account.token}?message=a&scene=rocket&param.${encodeURIComponent(name)}=red`,
      );
      expectError(query, 400, 'invalid_scene_param', `scene_params.${name}`);
      const scoped = await createToken(server, account.key, { scenes: ['rocket'] });
      expectError(
        await server.request('POST', '/v1/notifications', {
          token: scoped,
          json: { message: 'a', scene: name },
        }),
        400,
        sceneCode,
        'scene',
      );
    },
  );
});
