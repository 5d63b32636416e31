import type { Credential } from '../../model/accounts.js';
import { ACCOUNT_COLUMNS } from '../queries.js';
import { accountFromRow, tokenOf } from '../rows.js';
import type { SqliteConnection } from './connection.js';

/** A flood of distinct valid secrets cannot grow the copy of credentials without end. */
const MAX_CREDENTIALS_KEPT = 10_000;

/**
 * The credential behind a secret's hash. Every request reads its credential, so this keeps a copy
 * of the ones found: only the one `api` store writes these tables (workers never do), so the copy
 * cannot go stale, and every write that changes a credential calls `forget` first.
 */
export function sqliteCredentialLookup(db: SqliteConnection) {
  const kept = new Map<string, Credential>();

  const lookUp = (secretHash: string): Credential | undefined => {
    // One query for the common case, a send token: the token row and its account together.
    const token = db.get(
      `SELECT t.*, ${ACCOUNT_COLUMNS} FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.secret_hash = ?`,
      secretHash,
    );
    if (token) {
      return { kind: 'send', token: tokenOf(token), account: accountFromRow(token, 'a_') };
    }
    const account = db.get('SELECT * FROM accounts WHERE key_hash = ?', secretHash);
    if (account) return { kind: 'account', account: accountFromRow(account) };
    const retired = db.get(
      'SELECT a.* FROM retired_account_keys r JOIN accounts a ON a.id = r.account_id WHERE r.key_hash = ?',
      secretHash,
    );
    return retired && { kind: 'retired_account_key', account: accountFromRow(retired) };
  };

  return {
    async findCredential(secretHash: string) {
      const copy = kept.get(secretHash);
      if (copy) return copy;
      const found = lookUp(secretHash);
      if (kept.size >= MAX_CREDENTIALS_KEPT) kept.clear();
      if (found) kept.set(secretHash, found);
      return found;
    },
    forget: () => kept.clear(),
  };
}
