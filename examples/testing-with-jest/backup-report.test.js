const { Foxbell } = require('@foxbell/sdk');
const { FakeFoxbell, responses } = require('@foxbell/sdk/testing');
const { reportBackup } = require('./backup-report.js');

let service;
let client;
beforeEach(() => {
  jest.useFakeTimers();
  service = new FakeFoxbell();
  client = new Foxbell({ token: service.token, baseUrl: service.baseUrl, fetch: service.fetch });
});
afterEach(() => jest.useRealTimers());

test('a good backup is a passive notification, tagged per host', async () => {
  const line = await reportBackup(client, { host: 'db1', ok: true, gigabytes: 42 });
  expect(line).toBe(`reported as ${service.sends[0].id}`);
  expect(service.sends[0].fields).toMatchObject({
    title: 'Backup of db1 done',
    message: '42 GB written.',
    level: 'passive',
    tag: 'backup-db1',
  });
});

test('rides out two outages: the same bytes and key after 1 s, then 2 s', async () => {
  service.failNext(responses.unavailable(), responses.unavailable());
  const reporting = reportBackup(client, { host: 'db1', ok: false, gigabytes: 0 });
  // The waits are 1 s and 2 s, each with up to 250 ms of jitter.
  await jest.advanceTimersByTimeAsync(1_250);
  expect(service.requests.map((request) => request.status)).toEqual([503, 503]);
  await jest.advanceTimersByTimeAsync(2_250);
  expect(await reporting).toMatch(/^reported as ntf_/);
  const [first, , last] = service.requests;
  expect(last.status).toBe(202);
  expect(last.body).toBe(first.body);
  expect(last.headers['idempotency-key']).toBe(first.headers['idempotency-key']);
});

test('a revoked token is reported at once, never retried', async () => {
  service.failNext(responses.tokenRevoked());
  expect(await reportBackup(client, { host: 'db2', ok: true, gigabytes: 7 })).toBe(
    'not reported: the token no longer works',
  );
  expect(service.requests).toHaveLength(1);
});

test('gives up after the retries a dropped connection gets, in no real time', async () => {
  service.failNext(...Array.from({ length: 4 }, () => responses.dropConnection()));
  const reporting = reportBackup(client, { host: 'db3', ok: true, gigabytes: 1 });
  await jest.runAllTimersAsync();
  expect(await reporting).toBe('not reported: connection_error');
  expect(service.requests).toHaveLength(4);
});
