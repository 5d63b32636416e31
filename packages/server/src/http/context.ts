import type { PushProvider } from '../delivery/provider.js';
import type { Clock } from '../kernel/clock.js';
import type { IdSource } from '../kernel/ids.js';
import type { ServiceLimits } from '../kernel/limits.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Account, Credential } from '../model/accounts.js';
import type { Device } from '../model/devices.js';
import type { SendToken } from '../model/tokens.js';
import type { Store } from '../store/store.js';
import type { RouteDoc } from './route-doc.js';
import type { DeviceViewing } from './views.js';
import type { AccountWriteScope, WindowLimit } from './window-limit.js';

/** What every route may use: one object, made once by buildApp. */
export interface AppContext {
  store: Store;
  clock: Clock;
  ids: IdSource;
  limits: ServiceLimits;
  /** The operator's admin key; undefined when none is configured (admin routes then reject every caller). */
  adminKey: string | undefined;
  /** Called after a send is stored and queued: delivery in this process can start at once. */
  onQueued: () => void;
  /** Sends being stored now (see `ServiceLimits.sendsInFlight`). */
  inFlight: { sends: number };
  /** The write windows of each credential (account key, device key), by what they count. */
  accountWrites: Record<AccountWriteScope, WindowLimit>;
  /** Unknown credentials per client address. */
  failedCredentials: WindowLimit;
  /** Link requests (no credential) per client address. */
  linkRequests: WindowLimit;
  /** This process's metrics, when it serves them. */
  metrics: Metrics | undefined;
  /** The push providers: how a device registers with each, and how its view names it. */
  providers: readonly PushProvider[];
  /** The origin people reach the server at (`--public-url`), where the web app's pages are. */
  publicUrl: string | undefined;
}

/** Which credentials a route takes: the management API's, a linked app's device key, a link request's poll secret. */
export type CredentialKind = 'send' | 'account' | 'admin' | 'device' | 'link';

/** The credential a request was authenticated with, once it passed every check. */
export type Caller =
  | { kind: 'send'; token: SendToken; account: Account }
  | { kind: 'account'; account: Account }
  | { kind: 'admin' }
  | { kind: 'device'; device: Device; account: Account }
  | { kind: 'link'; requestId: string };

/** A request body, read but not yet interpreted: the route decides what each type means to it. */
export interface RawBody {
  type: 'json' | 'form' | 'text';
  bytes: Buffer;
}

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | undefined;
    /** The connection's `bytesRead` when this request began: its size is what came in since. */
    wireStart: number;
    /** The account's accepted sends this month, once a send route knows it (for X-RateLimit-*). */
    monthlyCount: number | undefined;
    /** The error code the request was rejected with, once it was (for metrics). */
    errorCode: string | undefined;
    /** Takes back the write this request was counted for (`config.accountWrite`), when it was. */
    giveBackWrite: (() => void) | undefined;
  }
  interface FastifyContextConfig {
    /**
     * The credentials the route accepts, or `'none'` for a route anyone may call. Every route says
     * one or the other: the app refuses to start with a route that says nothing (deny by default).
     */
    credentials?: readonly CredentialKind[] | 'none';
    /** The send token is the last path segment (`/v1/send/<TOKEN>`), not the Authorization header. */
    tokenInPath?: boolean;
    /**
     * A write to an account, counted for the credential that makes it (the account key, or each
     * device key apart) by a WindowLimit in its scope's window: `account_changes` for its devices,
     * tokens, key or existence; `account_events` for opened and cleared reports.
     */
    accountWrite?: AccountWriteScope;
    /** What the route says of itself: the OpenAPI document is made from it (http/route-doc.ts). */
    doc?: RouteDoc;
  }
}

export type { Credential };

/** What a module's routes are registered with: each module's routes are a Fastify plugin. */
export interface RoutesOptions {
  ctx: AppContext;
}

/** The account of a route that takes only account keys (auth has already made sure of it). */
export function callerAccount(caller: Caller | undefined): Account {
  if (caller?.kind !== 'account') throw new Error('account route reached without an account key');
  return caller.account;
}

/** The account of a route that takes an account key or a device key: the key's account. */
export function accountOrDevice(caller: Caller | undefined): Account {
  if (caller?.kind !== 'account' && caller?.kind !== 'device') {
    throw new Error('route reached without an account key or a device key');
  }
  return caller.account;
}

/** What a device's view is judged by at this moment (views.ts). */
export function freshness(ctx: AppContext): DeviceViewing {
  return { now: ctx.clock.now(), staleMs: ctx.limits.deviceStaleMs, providers: ctx.providers };
}
