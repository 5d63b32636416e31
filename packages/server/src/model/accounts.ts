import type { SendToken } from './tokens.js';

export interface Account {
  id: string;
  name: string | null;
  /** Counts key rotations: 1 for the key the account was created with. */
  keyGeneration: number;
  createdAt: number;
  deletedAt: number | null;
  /** The account it was merged into (the group's canonical one); its key then responds with `account_merged`. */
  mergedInto: string | null;
}

/**
 * A write for an account that was merged into another or deleted after its request was
 * authenticated and before its transaction ran: nothing was written. Every write that adds to an
 * account (devices, tokens, link approvals, a merge, a deletion) checks it inside its transaction,
 * under the account's lock, so nothing lands under an account no working key reaches.
 */
export class AccountEndedError extends Error {
  constructor(readonly account: Account) {
    super(`account ${account.id} was merged or deleted while a write for it waited`);
    this.name = 'AccountEndedError';
  }
}

/** Whether an account was merged into another or deleted: its own key no longer manages it. */
export function accountEnded(account: Account): boolean {
  return account.deletedAt !== null || account.mergedInto !== null;
}

/** What a presented secret turned out to be. */
export type Credential =
  | { kind: 'account'; account: Account }
  | { kind: 'retired_account_key'; account: Account }
  | { kind: 'send'; token: SendToken; account: Account };

/** How a merge ended: the group it made, or why nothing changed. */
export type AccountMerge =
  | { kind: 'merged'; accounts: string[] }
  /** The account to merge in was merged elsewhere or deleted after the request was checked. */
  | { kind: 'other_ended' }
  | { kind: 'group_full' }
  | { kind: 'devices_limit' };
