import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import type { PushProvider } from '../delivery/provider.js';
import { type Caller, freshness, type RoutesOptions } from '../http/context.js';
import { deviceKeyRevoked, devicesLimitReached } from '../http/errors.js';
import { readBody, textField } from '../http/management-body.js';
import { addressFromBody, namesAddress, registrationMembers } from '../http/push-address.js';
import { MANAGEMENT_WRITE } from '../http/route-doc.js';
import { deviceSchema, deviceView } from '../http/views.js';
import { HttpError } from '../kernel/http-error.js';

/** What a linked app may change of its own device: its name, `auto`, and where its pushes go. */
export const ownDeviceChange = (providers: readonly PushProvider[]) =>
  z.strictObject({
    name: textField(1, 64).optional(),
    in_auto: z.boolean().optional(),
    ...registrationMembers(providers),
  });

function callerDevice(caller: Caller | undefined) {
  if (caller?.kind !== 'device') throw new Error('device route reached without a device key');
  return caller.device;
}

/** The routes of a linked app's device key, about the device itself: `/v1/device`. */
export async function ownDeviceRoutes(app: FastifyInstance, { ctx }: RoutesOptions): Promise<void> {
  const change = ownDeviceChange(ctx.providers);
  const device = deviceSchema(ctx.providers);

  // The app's own device as its account sees it: whether it is active (a push service may have
  // said its subscription is gone), its name, its transport.
  app.get(
    '/v1/device',
    {
      config: {
        credentials: ['device'],
        doc: {
          operationId: 'getOwnDevice',
          summary: 'A linked device reads itself: whether it is active, its name, its transport',
          responses: { 200: { description: 'The device.', schema: device } },
          errors: ['forbidden'],
        },
      },
    },
    async (request) => deviceView(callerDevice(request.caller), freshness(ctx)),
  );

  app.patch(
    '/v1/device',
    {
      config: {
        credentials: ['device'],
        accountWrite: 'account_changes',
        doc: {
          operationId: 'updateOwnDevice',
          summary:
            'A linked device renames itself, or registers a new push address, which makes it active again within the devices limit',
          body: { schema: change },
          responses: { 200: { description: 'The device.', schema: device } },
          errors: [...MANAGEMENT_WRITE, 'device_exists', 'limit_reached'],
        },
      },
    },
    async (request) => {
      const device = callerDevice(request.caller);
      const body = readBody(request, change);
      // A web app that subscribes again keeps the address its notifications open (its provider
      // reads the previous address for it).
      const moved = namesAddress(body, ctx.providers)
        ? addressFromBody(body, ctx.providers, { appUrl: null, previous: device.address })
        : undefined;
      const updated = await ctx.store.updateOwnDevice(
        device,
        {
          ...(body.name === undefined ? {} : { name: body.name }),
          ...(body.in_auto === undefined ? {} : { inAuto: body.in_auto }),
          ...(moved ? { address: moved.address } : {}),
        },
        ctx.clock.now(),
        ctx.limits.devicesPerAccount,
      );
      if (updated === 'key_revoked') throw deviceKeyRevoked();
      if (updated === 'limit_reached') throw devicesLimitReached(ctx.limits.devicesPerAccount);
      if (updated === 'device_exists') {
        // Only a new address can be another device's.
        throw new HttpError('device_exists', 'another active device has this push address', {
          ...(moved ? { field: moved.field } : {}),
        });
      }
      return deviceView(updated, freshness(ctx));
    },
  );

  app.delete(
    '/v1/device',
    {
      config: {
        credentials: ['device'],
        accountWrite: 'account_changes',
        doc: {
          operationId: 'removeOwnDevice',
          summary: 'A linked device leaves its account: removed, its key revoked',
          responses: { 204: { description: 'Removed.' } },
          errors: ['forbidden', 'rate_limited'],
        },
      },
    },
    async (request, reply) => {
      await ctx.store.removeOwnDevice(callerDevice(request.caller).id, ctx.clock.now());
      return reply.code(204).send();
    },
  );
}
