import type { FastifyInstance } from 'fastify';
import * as z from 'zod';
import { callerAccount, type RoutesOptions } from '../http/context.js';
import { ACCOUNT_KEY_PATTERN } from '../http/hooks/auth.js';
import { readBody } from '../http/management-body.js';
import { MANAGEMENT_WRITE } from '../http/route-doc.js';
import { idOf } from '../http/schema-parts.js';
import { HttpError } from '../kernel/http-error.js';
import { hashSecret } from '../kernel/secrets.js';
import { accountEnded } from '../model/accounts.js';

export const accountMerge = z.strictObject({ account_key: z.string().max(64) });

/** A group of merged accounts holds at most this many, the canonical one included. */
const MERGE_GROUP_MAX = 5;

const accountMergeResponse = z
  .object({
    canonical_account_id: idOf('acct'),
    accounts: z.array(idOf('acct')).min(2).max(MERGE_GROUP_MAX),
  })
  .meta({ id: 'AccountMerge' });

/** `POST /v1/account/merge`: one person's accounts made one (model/merge.ts decides what moves). */
export async function mergeRoutes(app: FastifyInstance, { ctx }: RoutesOptions): Promise<void> {
  /**
   * Merges the account of `account_key` into the caller's, which survives: the other key, proof
   * that the caller holds both, is checked like any credential and never echoed.
   */
  app.post(
    '/v1/account/merge',
    {
      config: {
        credentials: ['account'],
        accountWrite: 'account_changes',
        doc: {
          operationId: 'mergeAccount',
          summary: "Merge another account (by its key) into the caller's, which survives",
          body: { schema: accountMerge, required: true },
          responses: { 200: { description: 'The group the merge made.', schema: accountMergeResponse } },
          errors: [...MANAGEMENT_WRITE, 'merge_group_full', 'limit_reached'],
        },
      },
    },
    async (request) => {
      const canonical = callerAccount(request.caller);
      const body = readBody(request, accountMerge);
      const found = ACCOUNT_KEY_PATTERN.test(body.account_key)
        ? await ctx.store.findCredential(hashSecret(body.account_key))
        : undefined;
      const notAnotherAccount = () =>
        new HttpError('invalid_field', 'account_key is not the key of another account of this service', {
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
        throw new HttpError(
          'merge_group_full',
          `a group of merged accounts holds at most ${MERGE_GROUP_MAX}`,
          {
            details: { max: MERGE_GROUP_MAX },
          },
        );
      }
      if (merged.kind === 'devices_limit') {
        throw new HttpError(
          'limit_reached',
          `the merged account would have more than ${ctx.limits.devicesPerAccount} active devices`,
          { details: { limit: 'devices', max: ctx.limits.devicesPerAccount } },
        );
      }
      return { canonical_account_id: canonical.id, accounts: merged.accounts };
    },
  );
}
