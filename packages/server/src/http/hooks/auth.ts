import { SEND_TOKEN_PATTERN } from '@foxbell/sdk/contract';
import { MESSAGES } from '@foxbell/sdk/server-contract';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../../kernel/http-error.js';
import { hashSecret, secretsEqual } from '../../kernel/secrets.js';
import type { Account } from '../../model/accounts.js';
import { tokenEnded } from '../../model/tokens.js';
import { clientNetwork } from '../client-network.js';
import type { AppContext, Caller, CredentialKind } from '../context.js';
import { deviceKeyRevoked } from '../errors.js';

export const ACCOUNT_KEY_PATTERN = /^fox_acct_[A-Za-z0-9]{32}$/;
export const DEVICE_KEY_PATTERN = /^fox_dev_[A-Za-z0-9]{32}$/;
const POLL_SECRET_PATTERN = /^fox_poll_[A-Za-z0-9]{32}$/;

const unauthorized = (message: string) => new HttpError('unauthorized', message);

/** `Authorization: Bearer <secret>`; undefined when the header is absent. */
export function bearerOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  if (!match) throw unauthorized('the Authorization header must be "Bearer <token>"');
  return match[1];
}

/**
 * Who a secret belongs to, or the spec's 401 saying why it no longer works. Only secrets of the
 * shapes the server issues are looked up; the lookup is by hash, so the secret itself is never
 * compared (and never stored).
 */
async function identify(secret: string, ctx: AppContext): Promise<Caller> {
  if (DEVICE_KEY_PATTERN.test(secret)) return identifyDevice(secret, ctx);
  if (POLL_SECRET_PATTERN.test(secret)) {
    const requestId = await ctx.store.findLinkSecret(hashSecret(secret));
    if (!requestId) throw unauthorized(MESSAGES.unknownCredential);
    return { kind: 'link', requestId };
  }
  const credential =
    SEND_TOKEN_PATTERN.test(secret) || ACCOUNT_KEY_PATTERN.test(secret)
      ? await ctx.store.findCredential(hashSecret(secret))
      : undefined;
  if (!credential) {
    if (ctx.adminKey !== undefined && secretsEqual(secret, ctx.adminKey)) return { kind: 'admin' };
    throw unauthorized(MESSAGES.unknownCredential);
  }
  const ended = endedAccountError(credential.account, credential.kind === 'send');
  if (ended) throw ended;
  switch (credential.kind) {
    case 'retired_account_key':
      throw new HttpError('key_rotated', 'this account key was replaced by a rotation; use the new key');
    case 'account':
      return { kind: 'account', account: credential.account };
    case 'send': {
      const { token } = credential;
      const ended = tokenEnded(token, ctx.clock.now());
      if (ended) throw new HttpError(ended, TOKEN_ENDED[ended]);
      return { kind: 'send', token, account: credential.account };
    }
  }
}

/**
 * What an account key of a deleted or merged account gets (and a credential that `followsMerge`,
 * a send token or a device key, which moved to the survivor): `account_deleted`, or
 * `account_merged` naming the account that survived.
 */
export function endedAccountError(account: Account, followsMerge = false): HttpError | undefined {
  if (account.deletedAt !== null) return new HttpError('account_deleted', 'the account was deleted');
  if (!followsMerge && account.mergedInto !== null) {
    return new HttpError(
      'account_merged',
      "this account was merged into another: use the surviving account's key",
      {
        details: { canonical_account_id: account.mergedInto },
      },
    );
  }
  return undefined;
}

const TOKEN_ENDED = {
  token_revoked: 'the token was revoked',
  token_expired: 'the token is past its expiry',
} as const;

/** A linked app's device key: its device's, until the device is removed. */
async function identifyDevice(secret: string, ctx: AppContext): Promise<Caller> {
  const found = await ctx.store.findDeviceKey(hashSecret(secret));
  if (!found) throw unauthorized(MESSAGES.unknownCredential);
  const ended = endedAccountError(found.account, true);
  if (ended) throw ended;
  if (found.revoked) throw deviceKeyRevoked();
  // Seen now: kept to the minute, so an app that polls writes once a minute, not on every call.
  const now = ctx.clock.now();
  let device = found.device;
  if (device.lastSeenAt === null || now - device.lastSeenAt >= SEEN_PRECISION_MS) {
    await ctx.store.markDeviceSeen(device.id, now);
    device = { ...device, lastSeenAt: now };
  }
  return { kind: 'device', device, account: found.account };
}

/** How finely `last_seen_at` is kept: a person reads "seen 3 days ago", not seconds. */
const SEEN_PRECISION_MS = 60_000;

const ROUTE_CREDENTIALS: Record<CredentialKind, string> = {
  send: 'a send token',
  account: 'an account key',
  admin: 'the admin key',
  device: 'a device key',
  link: "the link request's poll secret",
};

/**
 * Authenticates each request against the credentials its route declares (`config.credentials`),
 * before the body is read: `401` when the secret is unknown or no longer valid, `403 forbidden`
 * when it is valid but not one this route takes (spec, Authentication 5).
 */
export function registerAuth(app: FastifyInstance, ctx: AppContext): void {
  // Deny by default: a route that forgot to say which credentials it takes would be served to
  // anyone, so the app refuses to start with one.
  app.addHook('onRoute', ({ method, url, config }) => {
    if (config?.credentials === undefined) {
      throw new Error(
        `${[method].flat().join(',')} ${url} says nothing of its credentials: give config.credentials, or 'none' for a route anyone may call`,
      );
    }
  });
  app.decorateRequest('caller', undefined);
  app.addHook('onRequest', async (request) => {
    const { credentials, tokenInPath, accountWrite } = request.routeOptions.config;
    // A request no route matched (the 404 handler's) has nothing to be let into.
    if (credentials === 'none' || request.is404) return;
    if (credentials === undefined)
      throw new Error(`${request.routeOptions.url} says nothing of its credentials`);
    const secret = tokenInPath
      ? (request.params as { token?: string }).token
      : bearerOf(request.headers.authorization);
    if (secret === undefined || secret === '') {
      throw unauthorized('no credential: send "Authorization: Bearer <token>"');
    }
    // A secret that is not known counts against its address; past the limit, none is looked up.
    const client = clientNetwork(request.ip);
    ctx.failedCredentials.check(client);
    let caller: Caller;
    try {
      caller = await identify(secret, ctx);
    } catch (error) {
      if (error instanceof HttpError && error.code === 'unauthorized') ctx.failedCredentials.count(client);
      throw error;
    }
    if (!credentials.includes(caller.kind)) {
      throw new HttpError(
        'forbidden',
        `this route takes ${credentials.map((kind) => ROUTE_CREDENTIALS[kind]).join(' or ')}`,
      );
    }
    request.caller = caller;
    if (accountWrite && (caller.kind === 'account' || caller.kind === 'device')) {
      request.giveBackWrite = ctx.accountWrites[accountWrite].take(writerOf(caller));
    }
  });
  // A write rejected (4xx) or failed (5xx) changed nothing: its place in the window is given back,
  // so a client that keeps sending bodies the route rejects never spends what its changes need.
  app.decorateRequest('giveBackWrite', undefined);
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode >= 400) request.giveBackWrite?.();
  });
}

/**
 * Whose budget a write spends: each credential has its own. A device key (a phone that may be
 * stolen) never spends its account key's, so what the account key needs to take that device away
 * (remove it, revoke a token, rotate the key, delete the account) is never throttled by it.
 */
function writerOf(caller: Caller & { kind: 'account' | 'device' }): string {
  return caller.kind === 'device' ? `device:${caller.device.id}` : `account:${caller.account.id}`;
}
