import { Foxbell } from '@foxbell/sdk';
import { FakeFoxbell, responses } from '@foxbell/sdk/testing';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { announceDeploy } from './announce-deploy.js';

let service;
let client;
beforeEach(() => {
  vi.useFakeTimers();
  service = new FakeFoxbell();
  client = new Foxbell({ token: service.token, baseUrl: service.baseUrl, fetch: service.fetch });
});
afterEach(() => vi.useRealTimers());

/** Delivers each notification as soon as it is sent, as the service's workers would. */
function deliverEachSend() {
  const fetch = service.fetch;
  return async (input, init) => {
    const response = await fetch(input, init);
    for (const sent of service.sends)
      if (service.status(sent.id).status === 'accepted') service.deliver(sent.id);
    return response;
  };
}

it('sends a rocket with a tag per service, and reports the devices it reached', async () => {
  client = new Foxbell({ token: service.token, baseUrl: service.baseUrl, fetch: deliverEachSend() });
  expect(await announceDeploy(client, { service: 'api', version: 'v2.14', ok: true })).toBe(
    'announced on 3 devices',
  );
  expect(service.sends).toHaveLength(1);
  expect(service.sends[0].fields).toMatchObject({
    title: '✅ api v2.14 is live',
    scene: 'rocket',
    level: 'active',
    tag: 'deploy-api',
  });
});

it('rides out a rate limit: the same bytes and key again after Retry-After', async () => {
  client = new Foxbell({ token: service.token, baseUrl: service.baseUrl, fetch: deliverEachSend() });
  service.failNext(responses.rateLimited(5));
  const announcing = announceDeploy(client, { service: 'api', version: 'v2.15', ok: false });
  await vi.advanceTimersByTimeAsync(5_000);
  expect(await announcing).toBe('announced on 3 devices');
  const [refused, accepted] = service.requests;
  expect([refused.status, accepted.status]).toEqual([429, 202]);
  expect(accepted.body).toBe(refused.body);
  expect(accepted.headers['idempotency-key']).toBe(refused.headers['idempotency-key']);
});

it('says so when the quota is used up, without retrying', async () => {
  service.failNext(responses.quotaExceeded());
  expect(await announceDeploy(client, { service: 'api', version: 'v2.16', ok: true })).toBe(
    'not announced: the monthly quota is used up',
  );
  expect(service.requests).toHaveLength(1);
});

it('gives up after the retries a dropped connection gets, in no real time', async () => {
  service.failNext(...Array.from({ length: 4 }, () => responses.dropConnection()));
  const announcing = announceDeploy(client, { service: 'web', version: 'v9', ok: true });
  await vi.runAllTimersAsync();
  expect(await announcing).toBe('not announced: connection_error');
  expect(service.requests.map((request) => request.status)).toEqual([
    'dropped',
    'dropped',
    'dropped',
    'dropped',
  ]);
});

it('reports a notification no device was there for', async () => {
  const announcing = announceDeploy(client, { service: 'api', version: 'v3', ok: true });
  await vi.advanceTimersByTimeAsync(0);
  service.drop(service.sends[0].id, 'no_matching_device');
  await vi.advanceTimersByTimeAsync(1_000);
  expect(await announcing).toBe('not delivered: no_matching_device');
});

it('reports a notification whose every push failed, with why', async () => {
  const announcing = announceDeploy(client, { service: 'api', version: 'v4', ok: true });
  await vi.advanceTimersByTimeAsync(0);
  service.fail(service.sends[0].id, 'gone');
  await vi.advanceTimersByTimeAsync(1_000);
  expect(await announcing).toBe('not delivered: gone, gone, gone');
});
