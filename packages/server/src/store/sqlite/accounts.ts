import { type Account, AccountEndedError, accountEnded } from '../../model/accounts.js';
import { accountFromRow, type Row } from '../rows.js';
import type { SqliteConnection } from './connection.js';

/** The account as it is now, inside a write: one merged or deleted since its request began ends the write. */
export function requireLiveAccount(db: SqliteConnection, accountId: string): Account {
  const account = accountFromRow(db.get('SELECT * FROM accounts WHERE id = ?', accountId) as Row);
  if (accountEnded(account)) throw new AccountEndedError(account);
  return account;
}
