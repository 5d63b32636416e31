import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type AppDeps, buildApp } from '../src/app.js';
import type { PushProvider } from '../src/delivery/provider.js';
import type { PushHosts } from '../src/delivery/web-push/hosts.js';
import type { Clock } from '../src/kernel/clock.js';
import type { Metrics } from '../src/metrics/metrics.js';
import { routeNotification } from '../src/model/routing.js';
import type { Store } from '../src/store/store.js';
import { apiProviders } from './providers.js';
import { openTestStore } from './test-database.js';

export const ADMIN_KEY = 'test-admin-key-0123456789-abcdefghij';
/** A well-formed send token that no server issued. */
export const FOREIGN_TOKEN = `fox_send_${'Zz9'.repeat(10)}zz`;

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(public ms = Date.parse('2026-11-22T10:00:00.000Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(iso: string): void {
    this.ms = Date.parse(iso);
  }
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: test bodies are read field by field.
  body: any;
}

export interface RequestOptions {
  token?: string;
  json?: unknown;
  /** A raw body; sent with `contentType` (or none). */
  body?: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface TestServer {
  url: string;
  clock: ManualClock;
  store: Store;
  /** The app's metrics, when the test asked for them. */
  metrics: Metrics | undefined;
  /** The app's log (pino, at debug, into the file's log lines): a test's worker logs there too. */
  log: FastifyBaseLogger;
  /** The lines logged since this server started (by any server of the file), parsed. */
  logged(): LogLine[];
  request(method: string, path: string, options?: RequestOptions): Promise<Reply>;
  close(): Promise<void>;
}

/**
 * Every test server logs at debug level into `logLines`, and every secret any response carried is
 * kept: after the file, no line may contain one. (The spec: a token is never logged.)
 */
const logLines: string[] = [];

/** A pino log line: its level as a number (40 warn, 50 error), `msg`, and its fields. */
// biome-ignore lint/suspicious/noExplicitAny: log lines are read field by field.
export type LogLine = Record<string, any>;
const secretsSeen = new Set<string>([ADMIN_KEY]);
const logSink = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});
afterAll(() => {
  const leaked = [...secretsSeen].filter((secret) => logLines.some((line) => line.includes(secret)));
  expect(leaked, 'secrets found in the log lines of this file').toEqual([]);
});

/** The warning a push that will not arrive is logged with (server.md, "When a push fails"). */
export const willNotArrive = (
  fields: { notification_id: string; device_id: string; provider: string; reason: string } & LogLine,
): LogLine => ({ level: 40, msg: 'a push will not arrive', ...fields });

/** The warnings a server logged (level 40), as the operator reads them: without time, pid and host. */
export function warningsOf(server: Pick<TestServer, 'logged'>): LogLine[] {
  return server
    .logged()
    .filter((line) => line.level === 40)
    .map(({ time: _time, pid: _pid, hostname: _hostname, ...line }) => line);
}

const running: TestServer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => server.close()));
});

export interface ServerOptions {
  limits?: AppDeps['limits'];
  logger?: AppDeps['logger'];
  /** Stands between the app and the store, e.g. to make some calls fail. */
  wrapStore?: (store: Store) => Store;
  health?: AppDeps['health'];
  trustProxy?: string[];
  /** The server's own address (`--public-url`). */
  publicUrl?: string;
  /** The push services Web Push subscriptions may name (a local one in tests). */
  pushHosts?: PushHosts;
  /** The providers devices register with; default: the product's (see providers.ts). */
  providers?: (
    store: Store,
    clock: ManualClock,
  ) => readonly PushProvider[] | Promise<readonly PushProvider[]>;
  /** Metrics of the app, made on its store and clock. */
  metrics?: (store: Store, clock: ManualClock) => Metrics;
}

/**
 * The real app on a free port of 127.0.0.1, over real HTTP, with a manual clock, on a fresh store
 * of the kind this run tests (see test-database.ts); closed after each test.
 */
export async function startServer(options: ServerOptions = {}): Promise<TestServer> {
  const server = await openServer(options);
  running.push(server);
  return server;
}

/**
 * One value for every test of the `describe` (or file) this is called in: opened before the first
 * test, closed after the last; the function returns it. `name` is the helper's, for the error a call
 * at import gets.
 */
export function forAll<T>(name: string, open: () => Promise<{ value: T; close(): Promise<void> }>): () => T {
  let opened: { value: T; close(): Promise<void> } | undefined;
  beforeAll(async () => {
    opened = await open();
  });
  afterAll(async () => {
    await opened?.close();
  });
  return () => {
    if (!opened) throw new Error(`${name}: its server starts before the first test, not at import`);
    return opened.value;
  };
}

/**
 * One server for every test of the `describe` (or file) this is called in, as `startServer` makes
 * it (see forAll). Starting the app and opening a store cost more than most tests do, many times
 * more on PostgreSQL. For tests that leave the server as they found it for the next: each makes an
 * account (or a token) of its own, and none stops the server, moves its clock or counts what the
 * whole store holds.
 */
export function serverForAll(options: ServerOptions = {}): () => TestServer {
  return forAll('serverForAll', async () => {
    const server = await openServer(options);
    return { value: server, close: () => server.close() };
  });
}

/** A server as `startServer` makes it, closed by the caller: for the tests' own helpers that share one. */
export async function openServer(options: ServerOptions): Promise<TestServer> {
  const clock = new ManualClock();
  const opened = await openTestStore();
  const store = options.wrapStore ? options.wrapStore(opened) : opened;
  const metrics = options.metrics?.(store, clock);
  const app = buildApp({
    store,
    clock,
    adminKey: ADMIN_KEY,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.health ? { health: options.health } : {}),
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    providers:
      (await options.providers?.(store, clock)) ??
      apiProviders(store, clock, options.pushHosts ? { webPush: { hosts: options.pushHosts } } : {}),
    ...(metrics ? { metrics } : {}),
    logger: options.logger ?? { level: 'debug', stream: logSink },
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const firstLine = logLines.length;
  const server: TestServer = {
    url,
    clock,
    store,
    metrics,
    log: app.log,
    logged: () => logLines.slice(firstLine).map((line) => JSON.parse(line) as LogLine),
    request: (method, path, requestOptions = {}) => send(url, method, path, requestOptions),
    close: async () => {
      await app.close();
      await store.close();
    },
  };
  return server;
}

export async function send(
  baseUrl: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  let body: BodyInit | undefined = options.body as BodyInit | undefined;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] = 'application/json';
  }
  if (options.contentType !== undefined) headers['content-type'] = options.contentType;
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  for (const [secret] of text.matchAll(/fox_(?:send|acct|admin|dev|poll)_[A-Za-z0-9]{32}/g))
    secretsSeen.add(secret);
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, body: parsed } satisfies Reply;
}

export interface Account {
  id: string;
  key: string;
  /** A send token with default options. */
  token: string;
  devices: { id: string; name: string; platform: string; push_token: string }[];
}

let pushTokenCounter = 0;
/** A fresh 64-hex-digit push token. */
export function pushToken(): string {
  pushTokenCounter += 1;
  return pushTokenCounter.toString(16).padStart(64, 'a');
}

/** An account made through the management API, with nothing in it yet: its id and key. */
export async function bareAccount(server: TestServer): Promise<{ id: string; key: string }> {
  const reply = await server.request('POST', '/v1/accounts', { token: ADMIN_KEY, json: {} });
  if (reply.status !== 201) throw new Error(`account: ${reply.text}`);
  return { id: reply.body.id, key: reply.body.key };
}

/** An account made through the management API, with an iPhone, a watch and a headset and one token. */
export async function createAccount(
  server: TestServer,
  tokenOptions: Record<string, unknown> = {},
): Promise<Account> {
  const account = await server.request('POST', '/v1/accounts', { token: ADMIN_KEY, json: {} });
  if (account.status !== 201) throw new Error(`account: ${account.text}`);
  const devices = [];
  for (const [name, platform] of [
    ["Ana's iPhone", 'ios'],
    ["Ana's Watch", 'watchos'],
    ["Ana's Vision Pro", 'visionos'],
  ]) {
    const push_token = pushToken();
    const device = await server.request('POST', '/v1/devices', {
      token: account.body.key,
      json: { name, platform, push_token },
    });
    if (device.status !== 201) throw new Error(`device: ${device.text}`);
    devices.push({ ...device.body, push_token });
  }
  const token = await createToken(server, account.body.key, tokenOptions);
  return { id: account.body.id, key: account.body.key, token, devices };
}

export async function createToken(
  server: TestServer,
  accountKey: string,
  options: Record<string, unknown> = {},
) {
  const reply = await server.request('POST', '/v1/tokens', { token: accountKey, json: options });
  if (reply.status !== 201) throw new Error(`token: ${reply.text}`);
  return reply.body.token as string;
}

let installs = 0;
/**
 * A device that linked itself to the account of `accountKey` with this push address (a link
 * request, its approval, the first poll): its id and device key.
 */
export async function linkedDevice(
  server: TestServer,
  accountKey: string,
  push: Record<string, unknown> = { push_token: pushToken() },
) {
  installs += 1;
  const link = await server.request('POST', '/v1/link-requests', {
    json: { device_id: `install-${installs}`, name: `Phone ${installs}`, platform: 'ios', ...push },
  });
  expect(link.status, link.text).toBe(201);
  const approved = await server.request('POST', '/v1/link-approvals', {
    token: accountKey,
    json: { code: link.body.code },
  });
  expect(approved.status, approved.text).toBe(201);
  const polled = await server.request('GET', `/v1/link-requests/${link.body.id}`, {
    token: link.body.secret,
  });
  return { id: polled.body.device.id as string, key: polled.body.device_key as string };
}

/**
 * Routes every queued send to its devices as a worker would, without pushing: each destination
 * waits as `pending`. For servers started without delivery, where a report of what was opened
 * needs a device the notification went to.
 */
export async function routeQueued(server: TestServer): Promise<void> {
  const now = server.clock.now();
  await server.store.routeQueued({
    now,
    limit: 1000,
    decide: (input) => routeNotification(input, now, randomUUID),
  });
}

/** Asserts the spec's error body and returns it. */
export function expectError(reply: Reply, status: number, code: string, field?: string) {
  const expected = {
    status,
    code,
    field,
    requestId: reply.headers.get('x-request-id'),
  };
  const actual = {
    status: reply.status,
    code: reply.body?.error?.code,
    field: reply.body?.error?.field,
    requestId: reply.body?.request_id,
  };
  expect(actual, reply.text).toEqual(expected);
  expect(typeof reply.body.error.message).toBe('string');
  return reply.body;
}
