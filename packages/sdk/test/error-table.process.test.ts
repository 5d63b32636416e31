import { ADMIN, call, startProcess } from '@foxbell/test-support';
import { STORE_KINDS, testDatabase } from '@foxbell/test-support/databases';
import { describe, expect, it } from 'vitest';
import { Foxbell } from '../src/client.js';
import { ERROR_CODES, type ErrorCode, REQUEST_ID_PATTERN } from '../src/contract/index.js';
import { FoxbellDevice } from '../src/device.js';
import { AbortError, ApiError, ValidationError } from '../src/errors.js';
import { newTransport, send } from '../src/internal/request.js';
import type { RetryInfo } from '../src/retry.js';

/**
 * Every code of the interface's error table, provoked on a real foxbell-server on each store and
 * caught by the SDK: the error's class, status, code, details and request id, and whether the SDK
 * sent the request again (only `429 rate_limited`, 5xx and failures without a status are).
 *
 * Each is provoked through the SDK's public clients where one reaches it: `Foxbell` with a send
 * token, `FoxbellDevice` with a device key. Two kinds no public client reaches go through the
 * request layer every SDK call is made by (the retry loop and the error parsing): the management
 * API's codes (its callers hold an account key, which the SDK's clients do not take), and the 400s,
 * 413 and 415 the SDK rejects before sending; for those the test also checks that the SDK's own
 * error carries the code and field the server responds.
 */

/** What the SDK raised for one code. */
interface Raised {
  /** The error's class, by its name (`ConflictError`…). */
  class: string;
  status: number;
  details: Record<string, unknown> | undefined;
  /** The error's `requestId` is the response's `X-Request-Id`, in the interface's form. */
  requestId: boolean;
  /** The SDK sent the request again, or announced it would (`onRetry`). */
  retried: boolean;
}

/** A send token's prefix and body: 32 letters and digits. */
const UNKNOWN_SEND_TOKEN = `fox_send_${'A'.repeat(32)}`;
const UNKNOWN_DEVICE_KEY = `fox_dev_${'Z'.repeat(32)}`;

/** What each code must be, as docs/errors.md's table says. */
const EXPECTED: Record<ErrorCode, Omit<Raised, 'requestId'>> = {
  invalid_request: { class: 'InvalidRequestError', status: 400, details: undefined, retried: false },
  missing_field: { class: 'InvalidRequestError', status: 400, details: undefined, retried: false },
  invalid_field: { class: 'InvalidRequestError', status: 400, details: undefined, retried: false },
  conflicting_field: {
    class: 'InvalidRequestError',
    status: 400,
    details: { fields: ['message', 'body'] },
    retried: false,
  },
  invalid_scene: { class: 'InvalidRequestError', status: 400, details: undefined, retried: false },
  invalid_scene_param: { class: 'InvalidRequestError', status: 400, details: undefined, retried: false },
  unauthorized: { class: 'AuthenticationError', status: 401, details: undefined, retried: false },
  token_revoked: { class: 'AuthenticationError', status: 401, details: undefined, retried: false },
  token_expired: { class: 'AuthenticationError', status: 401, details: undefined, retried: false },
  key_rotated: { class: 'AuthenticationError', status: 401, details: undefined, retried: false },
  account_merged: {
    class: 'AuthenticationError',
    status: 401,
    details: { canonical_account_id: expect.stringMatching(/^acct_/) },
    retried: false,
  },
  account_deleted: { class: 'AuthenticationError', status: 401, details: undefined, retried: false },
  forbidden: { class: 'PermissionError', status: 403, details: undefined, retried: false },
  scene_not_allowed: {
    class: 'PermissionError',
    status: 403,
    details: { allowed: ['rocket'] },
    retried: false,
  },
  not_found: { class: 'NotFoundError', status: 404, details: undefined, retried: false },
  idempotency_conflict: { class: 'ConflictError', status: 409, details: undefined, retried: false },
  rotation_conflict: { class: 'ConflictError', status: 409, details: { generation: 2 }, retried: false },
  limit_reached: {
    class: 'ConflictError',
    status: 409,
    details: { limit: 'link_approvals', max: 5 },
    retried: false,
  },
  merge_group_full: { class: 'ConflictError', status: 409, details: { max: 5 }, retried: false },
  link_not_pending: { class: 'ConflictError', status: 409, details: undefined, retried: false },
  device_exists: { class: 'ConflictError', status: 409, details: undefined, retried: false },
  link_superseded: { class: 'ConflictError', status: 409, details: undefined, retried: false },
  source_rejected: {
    class: 'ConflictError',
    status: 409,
    details: { reason: 'unknown_key' },
    retried: false,
  },
  source_in_use: {
    class: 'ConflictError',
    status: 409,
    details: { token_count: 1, other_devices: 0 },
    retried: false,
  },
  cursor_expired: { class: 'ApiError', status: 410, details: undefined, retried: false },
  link_expired: { class: 'ApiError', status: 410, details: undefined, retried: false },
  payload_too_large: {
    class: 'InvalidRequestError',
    status: 413,
    details: { limit: 16_384, size: expect.any(Number) },
    retried: false,
  },
  unsupported_media_type: { class: 'InvalidRequestError', status: 415, details: undefined, retried: false },
  urls_not_allowed: { class: 'InvalidRequestError', status: 422, details: undefined, retried: false },
  quota_exceeded: { class: 'QuotaExceededError', status: 429, details: { limit: 6 }, retried: false },
  rate_limited: {
    class: 'RateLimitError',
    status: 429,
    details: { scope: 'token', limit: 3 },
    retried: true,
  },
  link_locked: { class: 'ApiError', status: 429, details: undefined, retried: false },
  internal_error: { class: 'ServerError', status: 500, details: undefined, retried: true },
  service_unavailable: { class: 'ServerError', status: 503, details: undefined, retried: true },
};

/** What a call gets to be counted and heard: its fetch, `onRetry`, and one retry allowed. */
interface Watch {
  fetch: typeof fetch;
  onRetry: (info: RetryInfo) => void;
  maxRetries: number;
}

/** The error a call ended with, which must be the SDK's. */
async function thrown(promise: Promise<unknown>): Promise<unknown> {
  const error = await promise.then(
    () => new Error('the call succeeded'),
    (failure: unknown) => failure,
  );
  return error;
}

/** Runs one SDK call that must fail with an ApiError, and says what the SDK raised. */
async function raise(run: (watch: Watch) => Promise<unknown>): Promise<[string, Raised]> {
  let sent = 0;
  const retries: RetryInfo[] = [];
  const error = await thrown(
    run({
      fetch: (input, init) => {
        sent += 1;
        return fetch(input, init);
      },
      onRetry: (info) => retries.push(info),
      maxRetries: 1,
    }),
  );
  if (!(error instanceof ApiError)) throw error;
  return [
    error.code,
    {
      class: error.name,
      status: error.status,
      details: error.details,
      requestId:
        REQUEST_ID_PATTERN.test(error.requestId ?? '') && error.headers['x-request-id'] === error.requestId,
      retried: sent > 1 || retries.length > 0,
    },
  ];
}

describe.each(STORE_KINDS)('the error table on a real foxbell-server on %s, as the SDK raises it', (kind) => {
  it('raises every code with its class, status, details and request id, and retries only 429 rate_limited and 5xx', async () => {
    const database = await testDatabase(kind);
    const server = await startProcess([
      ...database.args,
      ...['--admin-key', ADMIN, '--log-level', 'warn'],
      ...['--rate-per-token', '3', '--monthly-quota', '6'],
    ]);
    // link_expired's own server: its codes expire after two seconds.
    const shortCodes = await startProcess([
      ...(await testDatabase(kind)).args,
      ...['--admin-key', ADMIN, '--log-level', 'warn', '--link-code-seconds', '2'],
    ]);
    const baseUrl = server.url;
    const raised = new Map<string, Raised>();
    const record = (entry: [string, Raised]) => {
      expect(raised.has(entry[0]), `${entry[0]} raised twice`).toBe(false);
      raised.set(...entry);
    };

    const newAccount = async (url = baseUrl) => {
      const made = await call(url, 'POST', '/v1/accounts', { token: ADMIN, json: {} });
      expect(made.status, made.text).toBe(201);
      return made.body as { id: string; key: string };
    };
    const newToken = async (accountKey: string, json: Record<string, unknown> = {}) => {
      const made = await call(baseUrl, 'POST', '/v1/tokens', { token: accountKey, json });
      expect(made.status, made.text).toBe(201);
      return made.body as { id: string; token: string };
    };
    const sender = (token: string, watch: Watch) => new Foxbell({ token, baseUrl, ...watch });
    const device = (watch: Watch, deviceKey?: string, url = baseUrl) =>
      new FoxbellDevice({ baseUrl: url, fetch: watch.fetch, deviceKey });
    let installs = 0;
    const linkInput = (deviceId = `sdk-install-${++installs}`) => ({
      deviceId,
      name: 'Phone',
      platform: 'ios' as const,
      push: { pushToken: (++installs).toString(16).padStart(64, 'e') },
    });
    /** A device linked to the account: the account key approves its code. */
    const linked = async (accountKey: string, deviceId?: string, url = baseUrl) => {
      const app = new FoxbellDevice({ baseUrl: url });
      const request = await app.requestLink(linkInput(deviceId));
      const approved = await call(url, 'POST', '/v1/link-approvals', {
        token: accountKey,
        json: { code: request.code },
      });
      expect(approved.status, approved.text).toBe(201);
      const { linked: done } = await app.pollLink(request);
      return done as NonNullable<typeof done>;
    };
    /** A request the SDK's public clients have no method for, made by the request layer they use. */
    const request = (
      watch: Watch,
      credential: string,
      method: 'GET' | 'POST',
      path: string,
      body?: { text: string; type?: string },
    ) =>
      send(
        newTransport(baseUrl, {
          fetch: watch.fetch,
          maxRetries: watch.maxRetries,
          timeoutMs: 10_000,
          random: Math.random,
          onRetry: watch.onRetry,
          log: undefined,
          announceLongWait: undefined,
          hooks: undefined,
        }),
        {
          method,
          path,
          headers: {
            authorization: `Bearer ${credential}`,
            ...(body ? { 'content-type': body.type ?? 'application/json' } : {}),
          },
          ...(body ? { body: new TextEncoder().encode(body.text) } : {}),
        },
      );

    // The 400s, 413 and 415 the SDK rejects before sending, with the code and field the server
    // answers; sent past its checks, the server's response is raised as the same class.
    const ana = await newAccount();
    const anaToken = await newToken(ana.key);
    // The two codes that need time to pass are set going first and provoked last, so that the
    // test's other calls take up the wait: a token that expires in a second, and a link code of
    // the short-code server (two seconds).
    const expiring = await newToken(ana.key, { expires_at: new Date(Date.now() + 1_000).toISOString() });
    const expiringEnded = Date.now() + 1_100;
    const late = await linked((await newAccount(shortCodes.url)).key, undefined, shortCodes.url);
    const lateLink = await new FoxbellDevice({ baseUrl: shortCodes.url }).requestLink(linkInput());
    const lateLinkEnded = Date.now() + 2_100;
    const until = (instant: number) =>
      new Promise((resolve) => setTimeout(resolve, Math.max(0, instant - Date.now())));
    const refusedLocally = async (fields: Record<string, unknown>, headers?: Record<string, string>) => {
      const error = await thrown(
        new Foxbell({ token: anaToken.token, baseUrl }).send(fields as never, { headers }),
      );
      expect(error).toBeInstanceOf(ValidationError);
      const { code, field } = error as ValidationError;
      return { code, field };
    };
    const sentPast = async (text: string, type?: string) => {
      const entry = await raise((watch) =>
        request(watch, anaToken.token, 'POST', 'v1/notifications', { text, ...(type ? { type } : {}) }),
      );
      record(entry);
      return entry;
    };
    await sentPast('{"message": "unfinished');
    await sentPast('{}');
    expect(await refusedLocally({})).toEqual({ code: 'missing_field', field: 'message' });
    await sentPast('{"message": "x", "level": "loud"}');
    expect(await refusedLocally({ message: 'x', level: 'loud' })).toEqual({
      code: 'invalid_field',
      field: 'level',
    });
    await sentPast('{"message": "x", "body": "y"}');
    expect(await refusedLocally({ message: 'x', body: 'y' })).toEqual({
      code: 'conflicting_field',
      field: 'message',
    });
    await sentPast('{"message": "x", "scene": "rocket", "scene_params": {"color": "pink"}}');
    expect(await refusedLocally({ message: 'x', scene: 'rocket', scene_params: { color: 'pink' } })).toEqual({
      code: 'invalid_scene_param',
      field: 'scene_params.color',
    });
    await sentPast(JSON.stringify({ message: 'x', tags: 'y'.repeat(17_000) }));
    expect(await refusedLocally({ message: 'x' }, { 'x-padding': 'y'.repeat(17_000) })).toEqual({
      code: 'payload_too_large',
      field: undefined,
    });
    await sentPast('<message>x</message>', 'application/xml');

    // Sends with a send token, through Foxbell.
    record(await raise((watch) => sender(anaToken.token, watch).send({ message: 'x', scene: 'disco' })));
    record(await raise((watch) => sender(UNKNOWN_SEND_TOKEN, watch).send({ message: 'x' })));
    const revoked = await newToken(ana.key);
    expect((await call(baseUrl, 'DELETE', `/v1/tokens/${revoked.id}`, { token: ana.key })).status).toBe(204);
    record(await raise((watch) => sender(revoked.token, watch).send({ message: 'x' })));
    const gone = await newAccount();
    const goneToken = await newToken(gone.key);
    expect((await call(baseUrl, 'DELETE', '/v1/account', { token: gone.key })).status).toBe(204);
    record(await raise((watch) => sender(goneToken.token, watch).send({ message: 'x' })));
    const blind = await newToken(ana.key, { device_names: false });
    record(await raise((watch) => sender(blind.token, watch).devices()));
    const rocketsOnly = await newToken(ana.key, { scenes: ['rocket'] });
    record(
      await raise((watch) => sender(rocketsOnly.token, watch).send({ message: 'x', scene: 'campfire' })),
    );
    record(await raise((watch) => sender(anaToken.token, watch).status(`ntf_${'0'.repeat(22)}`)));
    await new Foxbell({ token: anaToken.token, baseUrl }).send(
      { message: 'first' },
      { idempotencyKey: 'build-1' },
    );
    record(
      await raise((watch) =>
        sender(anaToken.token, watch).send({ message: 'second' }, { idempotencyKey: 'build-1' }),
      ),
    );
    const agent = await newToken(ana.key, { kind: 'agent' });
    record(
      await raise((watch) => sender(agent.token, watch).send({ message: 'x', url: 'https://example.com/' })),
    );

    // The month's quota (6) across two tokens, then the minute's window of a third (3).
    const spender = await newAccount();
    for (const token of [await newToken(spender.key), await newToken(spender.key)]) {
      for (let i = 0; i < 3; i++)
        await new Foxbell({ token: token.token, baseUrl }).send({ message: `${i}` });
    }
    record(
      await raise(async (watch) => sender((await newToken(spender.key)).token, watch).send({ message: 'x' })),
    );
    const busy = await newToken((await newAccount()).key);
    for (let i = 0; i < 3; i++) await new Foxbell({ token: busy.token, baseUrl }).send({ message: `${i}` });
    // Retried after Retry-After, up to a minute away: the retry the SDK announces is where this
    // call stops (aborted), and the same send made without retries gives the error it ends with.
    const stopped = new AbortController();
    const announced: RetryInfo[] = [];
    const aborted = await thrown(
      new Foxbell({
        token: busy.token,
        baseUrl,
        maxRetries: 1,
        onRetry: (info) => {
          announced.push(info);
          stopped.abort();
        },
      }).send({ message: 'x' }, { signal: stopped.signal }),
    );
    expect(aborted).toBeInstanceOf(AbortError);
    expect(announced).toEqual([
      {
        attempt: 1,
        reason: 'rate_limited',
        status: 429,
        code: 'rate_limited',
        requestId: expect.stringMatching(REQUEST_ID_PATTERN),
        waitMs: expect.any(Number),
      },
    ]);
    const [code, limited] = await raise((watch) =>
      sender(busy.token, { ...watch, maxRetries: 0 }).send({ message: 'x' }),
    );
    record([code, { ...limited, retried: announced.length === 1 }]);

    // A fault the server did not expect: a trigger makes storing a send fail, on every attempt.
    const restore = await database.failInserts('notifications');
    record(await raise((watch) => sender(anaToken.token, watch).send({ message: 'x' })));
    await restore();
    const paused = await call(baseUrl, 'POST', '/v1/admin/pause', {
      token: ADMIN,
      json: { paused: true, retry_after: 1 },
    });
    expect(paused.status, paused.text).toBe(200);
    record(await raise((watch) => sender(anaToken.token, watch).send({ message: 'x' })));
    await call(baseUrl, 'POST', '/v1/admin/pause', { token: ADMIN, json: { paused: false } });

    // The management API's codes, with an account key.
    const rotating = await newAccount();
    const rotated = await call(baseUrl, 'POST', '/v1/account/key', {
      token: rotating.key,
      json: { generation: 1 },
    });
    expect(rotated.status, rotated.text).toBe(201);
    record(await raise((watch) => request(watch, rotating.key, 'GET', 'v1/devices')));
    record(
      await raise((watch) =>
        request(watch, rotated.body.key, 'POST', 'v1/account/key', { text: '{"generation": 1}' }),
      ),
    );
    const group = await newAccount();
    const merge = (canonicalKey: string, mergedKey: string) =>
      call(baseUrl, 'POST', '/v1/account/merge', { token: canonicalKey, json: { account_key: mergedKey } });
    const merged = await newAccount();
    expect((await merge(group.key, merged.key)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await merge(group.key, (await newAccount()).key)).status).toBe(200);
    record(await raise((watch) => request(watch, merged.key, 'GET', 'v1/devices')));
    const sixth = await newAccount();
    record(
      await raise((watch) =>
        request(watch, group.key, 'POST', 'v1/account/merge', {
          text: JSON.stringify({ account_key: sixth.key }),
        }),
      ),
    );

    // The person's side, through FoxbellDevice.
    const bea = await newAccount();
    const phone = await linked(bea.key, 'sdk-linked-1');
    const approver = (watch: Watch) => device(watch, phone.deviceKey);
    const beaPhone = new FoxbellDevice({ baseUrl, deviceKey: phone.deviceKey });
    record(await raise((watch) => device(watch).requestLink(linkInput('sdk-linked-1'))));
    const approvedOnce = await new FoxbellDevice({ baseUrl }).requestLink(linkInput());
    await beaPhone.approve(approvedOnce.code);
    record(await raise((watch) => approver(watch).approve(approvedOnce.code)));
    record(
      await raise((watch) =>
        device(watch).requestLink({
          ...linkInput('sdk-linked-1'),
          source: { deviceKey: UNKNOWN_DEVICE_KEY },
        }),
      ),
    );
    const bruno = await newAccount();
    await newToken(bruno.key);
    const brunosPhone = await linked(bruno.key, 'sdk-linked-2');
    record(
      await raise((watch) =>
        device(watch).requestLink({
          ...linkInput('sdk-linked-2'),
          source: { deviceKey: brunosPhone.deviceKey },
        }),
      ),
    );
    // Four more approvals make Bea's five in ten minutes; the sixth is one too many.
    for (let i = 0; i < 3; i++) {
      await beaPhone.approve((await new FoxbellDevice({ baseUrl }).requestLink(linkInput())).code);
    }
    const sixthLink = await new FoxbellDevice({ baseUrl }).requestLink(linkInput());
    record(await raise((watch) => approver(watch).approve(sixthLink.code)));
    // Five wrong codes lock Bruno's approvals.
    const brunosApprover = (watch: Watch) => device(watch, brunosPhone.deviceKey);
    for (let i = 0; i < 5; i++) {
      const wrong = await raise((watch) => brunosApprover(watch).approve(`WRNG-CDE${i + 2}`));
      expect(wrong[0]).toBe('not_found');
    }
    record(await raise((watch) => brunosApprover(watch).approve(sixthLink.code)));
    // A switch request of a device a merge then moved.
    const cleo = await newAccount();
    const old = await newAccount();
    const tablet = await linked(old.key, 'sdk-tablet-1');
    const move = await new FoxbellDevice({ baseUrl }).requestLink({
      ...linkInput('sdk-tablet-1'),
      source: { deviceKey: tablet.deviceKey },
      sourceInUse: 'leave',
    });
    expect((await merge(cleo.key, old.key)).status).toBe(200);
    const elsewhere = await newAccount();
    const elsewhereTablet = await linked(elsewhere.key, 'sdk-tablet-2');
    record(await raise((watch) => device(watch, elsewhereTablet.deviceKey).approve(move.code)));
    // An inbox cursor of another account.
    const reader = await newAccount();
    const readerToken = await newToken(reader.key);
    for (const message of ['one', 'two'])
      await new Foxbell({ token: readerToken.token, baseUrl }).send({ message });
    const readerPhone = await linked(reader.key, 'sdk-reader-1');
    const page = await new FoxbellDevice({ baseUrl, deviceKey: readerPhone.deviceKey }).inbox({ limit: 1 });
    expect(page.nextCursor).not.toBeNull();
    record(await raise((watch) => approver(watch).inbox({ cursor: page.nextCursor as string })));
    // A token used after its expiry, and a code approved after its two seconds.
    await until(expiringEnded);
    record(await raise((watch) => sender(expiring.token, watch).send({ message: 'x' })));
    await until(lateLinkEnded);
    record(await raise((watch) => device(watch, late.deviceKey, shortCodes.url).approve(lateLink.code)));

    expect(Object.fromEntries(raised)).toEqual(
      Object.fromEntries(
        Object.entries(EXPECTED).map(([code, entry]) => [code, { ...entry, requestId: true }]),
      ),
    );
    for (const [code, entry] of raised) expect(entry.status).toBe(ERROR_CODES[code as ErrorCode].status);
    expect(raised.get('account_merged')?.details).toEqual({ canonical_account_id: group.id });
  }, 90_000);
});
