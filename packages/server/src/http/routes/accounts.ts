import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { ApiError } from '../../kernel/api-error.js';
import { hashSecret } from '../../kernel/secrets.js';
import { accountEnded } from '../../model/accounts.js';
import { ACCOUNT_KEY_PATTERN } from '../auth.js';
import { type AppContext, callerAccount } from '../context.js';
import { readBody, textField } from '../management-body.js';

export const newAccount = z.strictObject({ name: textField(1, 250).optional() });
export const keyRotation = z.strictObject({ generation: z.int().min(1).optional() });
export const accountMerge = z.strictObject({ account_key: z.string().max(64) });

/** A group of merged accounts holds at most this many, the canonical one included. */
const MERGE_GROUP_MAX = 5;

export function accountRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/v1/accounts', { config: { credentials: ['admin'] } }, async (request, reply) => {
    const body = readBody(request, newAccount);
    const key = ctx.ids.secret('acct');
    const account = await ctx.store.createAccount({
      id: ctx.ids.id('acct'),
      name: body.name ?? null,
      keyHash: hashSecret(key),
      now: ctx.clock.now(),
    });
    return reply.code(201).send({ id: account.id, key, generation: account.keyGeneration });
  });

  /**
   * Rotation is compare-and-set on the key's generation: of two concurrent rotations holding the
   * same generation, one wins and the other learns the new generation from `rotation_conflict`.
   */
  app.post(
    '/v1/account/key',
    { config: { credentials: ['account'], accountWrite: 'account_changes' } },
    async (request, reply) => {
      const account = callerAccount(request.caller);
      const body = readBody(request, keyRotation);
      const key = ctx.ids.secret('acct');
      const result = await ctx.store.rotateAccountKey(account.id, {
        keyHash: hashSecret(key),
        expectedGeneration: body.generation,
        now: ctx.clock.now(),
      });
      if (!result.ok) {
        throw new ApiError('rotation_conflict', 'another rotation replaced this generation of the key', {
          field: 'generation',
          details: { generation: result.generation },
        });
      }
      return reply.code(201).send({ key, generation: result.generation });
    },
  );

  /**
   * Merges the account of `account_key` into the caller's, which survives: the other key, proof
   * that the caller holds both, is checked like any credential and never echoed.
   */
  app.post(
    '/v1/account/merge',
    { config: { credentials: ['account'], accountWrite: 'account_changes' } },
    async (request) => {
      const canonical = callerAccount(request.caller);
      const body = readBody(request, accountMerge);
      const found = ACCOUNT_KEY_PATTERN.test(body.account_key)
        ? await ctx.store.findCredential(hashSecret(body.account_key))
        : undefined;
      const notAnotherAccount = () =>
        new ApiError('invalid_field', 'account_key is not the key of another account of this service', {
          field: 'account_key',
        });
      if (found?.kind !== 'account' || accountEnded(found.account) || found.account.id === canonical.id) {
        throw notAnotherAccount();
      }
      const merged = await ctx.store.mergeAccounts({
        canonicalId: canonical.id,
        mergedId: found.account.id,
        now: ctx.clock.now(),
        limits: { groupMax: MERGE_GROUP_MAX, devices: ctx.limits.devicesPerAccount },
      });
      // Merged elsewhere or deleted while this request waited: as if it had been so before.
      if (merged.kind === 'other_ended') throw notAnotherAccount();
      if (merged.kind === 'group_full') {
        throw new ApiError(
          'merge_group_full',
          `a group of merged accounts holds at most ${MERGE_GROUP_MAX}`,
          {
            details: { max: MERGE_GROUP_MAX },
          },
        );
      }
      if (merged.kind === 'devices_limit') {
        throw new ApiError(
          'limit_reached',
          `the merged account would have more than ${ctx.limits.devicesPerAccount} active devices`,
          { details: { limit: 'devices', max: ctx.limits.devicesPerAccount } },
        );
      }
      return { canonical_account_id: canonical.id, accounts: merged.accounts };
    },
  );

  app.delete(
    '/v1/account',
    { config: { credentials: ['account'], accountWrite: 'account_changes' } },
    async (request, reply) => {
      await ctx.store.deleteAccount(callerAccount(request.caller).id, ctx.clock.now());
      return reply.code(204).send();
    },
  );
}
