import { PLATFORMS } from '@foxbell/sdk/contract';
import { CLIENT_DEVICE_ID_PATTERN, canonicalLinkCode } from '@foxbell/sdk/server-contract';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import * as z from 'zod';
import type { PushProvider } from '../delivery/provider.js';
import { clientNetwork } from '../http/client-network.js';
import { type AppContext, accountOrDevice, freshness, type RoutesOptions } from '../http/context.js';
import { devicesLimitReached } from '../http/errors.js';
import { bearerOf, DEVICE_KEY_PATTERN } from '../http/hooks/auth.js';
import { readBody, textField } from '../http/management-body.js';
import { noSuch, pathIdOf } from '../http/path-ids.js';
import { addressFromBody, registrationMembers } from '../http/push-address.js';
import { BODY_ERRORS, MANAGEMENT_WRITE, pathId } from '../http/route-doc.js';
import { idOf, timestamp } from '../http/schema-parts.js';
import { deviceSchema, deviceView } from '../http/views.js';
import { isoTime, retryAfterSeconds } from '../kernel/clock.js';
import { HttpError } from '../kernel/http-error.js';
import { hashSecret } from '../kernel/secrets.js';
import type { LinkApproval, LinkRequest } from '../model/links.js';
import { linkStateAt } from '../model/links.js';
import { newLinkCode } from './codes.js';
import { openDeviceKey, sealDeviceKey } from './sealed-key.js';

/** The app's own id for itself: made once per installation and kept. */
const CLIENT_DEVICE_ID = z.string().regex(CLIENT_DEVICE_ID_PATTERN, 'must be 8 to 64 of A-Z a-z 0-9 _ -');

/** A device asking to be linked: who it is, and where its pushes go. */
export const newLinkRequest = (providers: readonly PushProvider[]) =>
  z.strictObject({
    device_id: CLIENT_DEVICE_ID,
    name: textField(1, 64),
    platform: z.enum(PLATFORMS),
    in_auto: z.boolean().default(true),
    ...registrationMembers(providers),
    // A device switching accounts: its key for the one it leaves, and what to do if that account
    // is still in use.
    source: z.strictObject({ device_key: z.string().max(64) }).optional(),
    source_in_use: z.enum(['refuse', 'leave']).default('refuse'),
  });

export const linkApproval = z.strictObject({ code: textField(1, 64) });

const newLinkRequestResponse = z
  .object({
    id: idOf('lnk'),
    code: z.string().meta({ pattern: '^[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$' }),
    secret: z.string().meta({ pattern: '^fox_poll_[A-Za-z0-9]{32}$' }),
    expires_at: timestamp,
  })
  .meta({ id: 'NewLinkRequest' });

/**
 * Where the web app that made a request lives, for its notifications to open: its page at the
 * server's own address (`--public-url`), when the request came from a page there (a browser says
 * so in `Origin`). Built from the setting, never from what the client says: `Origin` and `Host`
 * only pick between that page and none.
 */
function appUrlOf(request: FastifyRequest, publicUrl: string | undefined): string | null {
  const origin = URL.parse(request.headers.origin ?? '')?.origin;
  return publicUrl !== undefined && origin === publicUrl ? `${publicUrl}/app/` : null;
}

/** A link request as its poller sees it: its state, and when its code stops working. */
function linkView(link: LinkRequest, now: number) {
  return { state: linkStateAt(link, now), expires_at: isoTime(link.expiresAt) };
}

/** An approval that did not approve, as the interface's error. */
function approvalError(outcome: Exclude<LinkApproval, { kind: 'approved' }>, ctx: AppContext): HttpError {
  const { limits } = ctx;
  switch (outcome.kind) {
    case 'locked':
      return new HttpError(
        'link_locked',
        'too many wrong link codes: this account may approve again after Retry-After',
        {
          headers: { 'retry-after': String(retryAfterSeconds(outcome.retryAfterMs)) },
        },
      );
    case 'no_code':
      return new HttpError('not_found', 'no link request has this code', { field: 'code' });
    case 'superseded':
      return new HttpError(
        'link_superseded',
        'another registration of this device id came with a merge: link again',
      );
    case 'not_pending':
      return new HttpError('link_not_pending', 'this link request was approved or cancelled already');
    case 'expired':
      return new HttpError('link_expired', 'this link code expired: the device makes a new request');
    case 'approvals_limit':
      return new HttpError(
        'limit_reached',
        `an account approves at most ${limits.linkApprovalsPerWindow} links in ${limits.linkWindowMs / 60_000} minutes`,
        {
          details: { limit: 'link_approvals', max: limits.linkApprovalsPerWindow },
          headers: { 'retry-after': String(retryAfterSeconds(outcome.retryAfterMs)) },
        },
      );
    case 'devices_limit':
      return devicesLimitReached(limits.devicesPerAccount);
  }
}

/**
 * The device a switching request proves it is, by its key for the account it leaves: its
 * registration there, which the request may take over. Rejected when the key is unknown, revoked or
 * another device's, and, unless `leave` says otherwise, while the old account has send tokens or
 * other devices (the person would be left with an account still in use, unseen).
 */
async function switchingFrom(
  body: { device_id: string; source?: { device_key: string } | undefined; source_in_use: 'refuse' | 'leave' },
  ctx: AppContext,
): Promise<string | null> {
  if (body.source === undefined) return null;
  const rejected = (reason: 'unknown_key' | 'key_revoked' | 'other_device', message: string) =>
    new HttpError('source_rejected', message, { field: 'source.device_key', details: { reason } });
  const found = DEVICE_KEY_PATTERN.test(body.source.device_key)
    ? await ctx.store.findDeviceKey(hashSecret(body.source.device_key))
    : undefined;
  if (!found) throw rejected('unknown_key', 'source.device_key is not a device key of this service');
  if (found.revoked || found.account.deletedAt !== null) {
    throw rejected('key_revoked', 'source.device_key was revoked: its device was removed');
  }
  if (found.device.clientId !== body.device_id) {
    throw rejected('other_device', "source.device_key is another device's key");
  }
  if (body.source_in_use === 'refuse') {
    const use = await ctx.store.accountUse(found.account.id, found.device.id, ctx.clock.now());
    if (use.tokens > 0 || use.otherDevices > 0) {
      throw new HttpError(
        'source_in_use',
        'the account this device leaves is still in use: give source_in_use "leave" to leave it anyway',
        { details: { token_count: use.tokens, other_devices: use.otherDevices } },
      );
    }
  }
  return found.device.id;
}

export async function linkRoutes(app: FastifyInstance, { ctx }: RoutesOptions): Promise<void> {
  const requestBody = newLinkRequest(ctx.providers);
  const device = deviceSchema(ctx.providers);
  const linkRequestResponse = z
    .object({
      state: z.enum(['pending', 'approved', 'cancelled', 'expired', 'superseded']),
      expires_at: timestamp,
      device: device.optional(),
      device_key: z.string().optional().meta({
        pattern: '^fox_dev_[A-Za-z0-9]{32}$',
        description: 'On the first read after approval only.',
      }),
      account_id: idOf('acct').optional(),
    })
    .meta({ id: 'LinkRequest' });
  const linkApprovalResponse = z.object({ device }).meta({ id: 'LinkApproval' });

  // No credential: a device that has none yet. Braked per client address instead.
  app.post(
    '/v1/link-requests',
    {
      config: {
        credentials: 'none',
        doc: {
          operationId: 'requestLink',
          summary: 'A device asks to be linked: a code for its person to approve, a secret to poll with',
          body: { schema: requestBody, required: true },
          responses: {
            201: { description: 'The request, its code and poll secret.', schema: newLinkRequestResponse },
          },
          errors: [...BODY_ERRORS, 'device_exists', 'rate_limited', 'unsupported_media_type'],
        },
      },
    },
    async (request, reply) => {
      ctx.linkRequests.take(clientNetwork(request.ip));
      const body = readBody(request, requestBody);
      const { address } = addressFromBody(body, ctx.providers, { appUrl: appUrlOf(request, ctx.publicUrl) });
      const sourceDeviceId = await switchingFrom(body, ctx);
      const now = ctx.clock.now();
      const id = ctx.ids.id('lnk');
      const secret = ctx.ids.secret('poll');
      const deviceKey = ctx.ids.secret('dev');
      const code = newLinkCode();
      const expiresAt = now + ctx.limits.linkCodeMs;
      const created = await ctx.store.createLinkRequest({
        id,
        codeHash: hashSecret(canonicalLinkCode(code) as string),
        secretHash: hashSecret(secret),
        keyHash: hashSecret(deviceKey),
        sealedKey: sealDeviceKey(deviceKey, secret),
        device: {
          clientId: body.device_id,
          name: body.name,
          platform: body.platform,
          inAuto: body.in_auto,
          address,
        },
        sourceDeviceId,
        now,
        expiresAt,
      });
      if (created === 'device_exists') {
        throw new HttpError(
          'device_exists',
          'this device id or push address is registered already, or being linked',
          {
            field: 'device_id',
          },
        );
      }
      return reply.code(201).send({ id, code, secret, expires_at: isoTime(expiresAt) });
    },
  );

  app.get<{ Params: { id: string } }>(
    '/v1/link-requests/:id',
    {
      // No HEAD beside this GET: its first read after approval takes the device key, which a HEAD
      // would take without handing it over.
      exposeHeadRoute: false,
      config: {
        credentials: ['link'],
        doc: {
          operationId: 'getLinkRequest',
          summary: "A link request's state; on the first read after approval, the device key",
          parameters: [pathId('id', 'A link request id.')],
          responses: { 200: { description: 'Its state.', schema: linkRequestResponse } },
          errors: ['forbidden', 'not_found'],
        },
      },
      onRequest: pathIdOf('lnk'),
    },
    async (request) => {
      const link = await ownLink(request, ctx);
      const view = linkView(link, ctx.clock.now());
      if (view.state !== 'approved' || !link.approved) return view;
      // The device key, once: the first read after approval takes it from the store.
      const sealed = await ctx.store.takeSealedKey(link.id);
      // Opened with the poll secret itself: auth found the request by the secret's hash.
      const deviceKey =
        sealed === null ? undefined : openDeviceKey(sealed, bearerOf(request.headers.authorization) ?? '');
      if (deviceKey === undefined) return view;
      const found = await ctx.store.findDeviceKey(hashSecret(deviceKey));
      if (!found) return view;
      return {
        ...view,
        device: deviceView(found.device, freshness(ctx)),
        device_key: deviceKey,
        account_id: link.approved.accountId,
      };
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/v1/link-requests/:id',
    {
      config: {
        credentials: ['link'],
        doc: {
          operationId: 'cancelLinkRequest',
          summary: 'Cancel a link request',
          parameters: [pathId('id', 'A link request id.')],
          responses: { 204: { description: 'Cancelled.' } },
          errors: ['forbidden', 'not_found', 'link_not_pending', 'link_superseded'],
        },
      },
      onRequest: pathIdOf('lnk'),
    },
    async (request, reply) => {
      await ownLink(request, ctx);
      const link = await ctx.store.cancelLinkRequest(request.params.id);
      if (link?.state === 'superseded') throw approvalError({ kind: 'superseded' }, ctx);
      if (link?.state !== 'cancelled') throw approvalError({ kind: 'not_pending' }, ctx);
      return reply.code(204).send();
    },
  );

  app.post(
    '/v1/link-approvals',
    {
      config: {
        credentials: ['account', 'device'],
        accountWrite: 'account_changes',
        doc: {
          operationId: 'approveLink',
          summary: "Approve a device's link code: it is registered to the approver's account",
          body: { schema: linkApproval, required: true },
          responses: { 201: { description: 'The device registered.', schema: linkApprovalResponse } },
          errors: [
            ...MANAGEMENT_WRITE,
            'not_found',
            'link_locked',
            'link_superseded',
            'link_not_pending',
            'link_expired',
            'limit_reached',
          ],
        },
      },
    },
    async (request, reply) => {
      const account = accountOrDevice(request.caller);
      const body = readBody(request, linkApproval);
      const code = canonicalLinkCode(body.code);
      const outcome = await ctx.store.approveLink({
        codeHash: code === undefined ? undefined : hashSecret(code),
        accountId: account.id,
        deviceId: ctx.ids.id('dev'),
        now: ctx.clock.now(),
        limits: {
          windowMs: ctx.limits.linkWindowMs,
          wrongCodes: ctx.limits.wrongLinkCodesPerWindow,
          approvals: ctx.limits.linkApprovalsPerWindow,
          devices: ctx.limits.devicesPerAccount,
        },
      });
      if (outcome.kind !== 'approved') throw approvalError(outcome, ctx);
      return reply.code(201).send({ device: deviceView(outcome.device, freshness(ctx)) });
    },
  );
}

/** The link request of the path, if the poll secret is its own; any other is none the caller may see. */
async function ownLink(
  request: FastifyRequest<{ Params: { id: string } }>,
  ctx: AppContext,
): Promise<LinkRequest> {
  const { caller } = request;
  const link =
    caller?.kind === 'link' && caller.requestId === request.params.id
      ? await ctx.store.getLinkRequest(request.params.id)
      : undefined;
  if (!link) throw noSuch('lnk');
  return link;
}
