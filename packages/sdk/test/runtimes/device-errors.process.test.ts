import { ADMIN, call, startProcess, tempDir } from '@foxbell/test-support';
import { describe, expect, it } from 'vitest';
import { FoxbellDevice } from '../../src/device.js';
import { ApiError } from '../../src/errors.js';

/**
 * The person's side of the error table, provoked on a real foxbell-server and caught by the SDK's
 * device client: each error's class, code, status, details and request id, and whether the call
 * was sent again (only 429 rate_limited, 5xx and failures without a status are).
 */

/** A device client whose requests are counted, with the server's request id of each answer. */
function counted(
  baseUrl: string,
  options: { deviceKey?: string | undefined; deviceId?: string | undefined } = {},
) {
  const sent: string[] = [];
  const device = new FoxbellDevice({
    baseUrl,
    ...options,
    fetch: async (input, init) => {
      sent.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
      return fetch(input, init);
    },
  });
  return { device, sent };
}

/** The error a call ended with, as the SDK raised it. */
async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

const expectError = (error: ApiError, status: number, code: string, details?: Record<string, unknown>) => {
  expect({ status: error.status, code: error.code, details: error.details }).toEqual({
    status,
    code,
    details,
  });
  expect(error.requestId).toMatch(/^req_/);
};

let installs = 0;
const input = (json: { deviceId?: string; pushToken?: string; source?: string } = {}) => {
  installs += 1;
  return {
    deviceId: json.deviceId ?? `sdk-install-${installs}`,
    name: 'Phone',
    platform: 'ios' as const,
    push: { pushToken: json.pushToken ?? installs.toString(16).padStart(64, 'e') },
  };
};

describe("the device client against a real server: the person's side of the error table", () => {
  it('raises each linking error with its status, code and details, and sends none of them twice', async () => {
    const server = await startProcess([
      '--admin-key',
      ADMIN,
      '--data',
      await tempDir(),
      '--log-level',
      'warn',
    ]);
    const account = await call(server.url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
    const app = counted(server.url);

    // A device linked by the account key: its device client approves from here on.
    const first = await app.device.requestLink(input({ deviceId: 'sdk-linked-1' }));
    expect(
      (
        await call(server.url, 'POST', '/v1/link-approvals', {
          token: account.body.key,
          json: { code: first.code },
        })
      ).status,
    ).toBe(201);
    const { linked } = await app.device.pollLink(first);
    const phone = counted(server.url, { deviceKey: linked?.deviceKey, deviceId: linked?.device.id });

    // device_exists: the same app id again.
    app.sent.length = 0;
    expectError(
      await failure(app.device.requestLink(input({ deviceId: 'sdk-linked-1' }))),
      409,
      'device_exists',
    );
    expect(app.sent).toEqual(['POST /v1/link-requests']);

    // link_not_pending: a code approved already.
    phone.sent.length = 0;
    expectError(await failure(phone.device.approve(first.code)), 409, 'link_not_pending');
    expect(phone.sent).toEqual(['POST /v1/link-approvals']);

    // source_rejected and source_in_use, with their details.
    const switching = { ...input({ deviceId: 'sdk-linked-1' }) };
    expectError(
      await failure(
        app.device.requestLink({ ...switching, source: { deviceKey: `fox_dev_${'Z'.repeat(32)}` } }),
      ),
      409,
      'source_rejected',
      { reason: 'unknown_key' },
    );
    await call(server.url, 'POST', '/v1/tokens', { token: account.body.key, json: {} });
    expectError(
      await failure(app.device.requestLink({ ...switching, source: { deviceKey: linked?.deviceKey ?? '' } })),
      409,
      'source_in_use',
      { token_count: 1, other_devices: 0 },
    );
    const other = await app.device.requestLink(input());

    // forbidden: a device key on a route of the account key's.
    const forbidden = await failure(
      phone.device.cancelLink({ id: first.id, secret: linked?.deviceKey ?? '' }),
    );
    expectError(forbidden, 403, 'forbidden');

    // link_locked after 5 wrong codes: a 429 that is not retried.
    for (let i = 0; i < 5; i++) {
      expectError(await failure(phone.device.approve(`WRNG-CDE${i + 2}`)), 404, 'not_found');
    }
    phone.sent.length = 0;
    const locked = await failure(phone.device.approve(other.code));
    expectError(locked, 429, 'link_locked');
    expect(phone.sent).toEqual(['POST /v1/link-approvals']);

    // token_revoked once the device is removed.
    await phone.device.leave();
    expectError(await failure(phone.device.inbox()), 401, 'token_revoked');
  }, 30_000);
});
