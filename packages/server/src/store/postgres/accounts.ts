import { type Account, AccountEndedError, accountEnded } from '../../model/accounts.js';
import { accountFromRow, type Row } from '../rows.js';
import type { Session } from './connection.js';

/**
 * The account as it is now, inside a transaction that holds its lock (`account:<id>`, which a
 * merge and a deletion take too): one merged or deleted since its request began ends the write.
 */
export async function requireLiveAccount(db: Session, accountId: string): Promise<Account> {
  const account = accountFromRow((await db.row('SELECT * FROM accounts WHERE id = $1', [accountId])) as Row);
  if (accountEnded(account)) throw new AccountEndedError(account);
  return account;
}
