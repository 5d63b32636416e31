import { TurnBatcher } from '../../kernel/turn-batcher.js';
import type { Credential } from '../../model/accounts.js';
import { accountFromRow, type Row, tokenOf } from '../rows.js';
import type { PostgresConnection } from './connection.js';

/**
 * The credential behind a secret's hash, read on every request from the database (any process may
 * have revoked a token): requests that arrive in the same turn of the event loop share one query,
 * made after all of them arrived, so none sees a state older than its arrival.
 */
export function postgresCredentialLookup(db: PostgresConnection) {
  /** The credentials behind secret hashes, in one statement for all of them. */
  const lookUp = async (hashes: readonly string[]): Promise<(Credential | undefined)[]> => {
    // A secret is a send token, an account key or a retired account key: one statement asks all three.
    const rows = await db.read(
      `SELECT 'send' AS kind, t.secret_hash AS hash, row_to_json(t) AS token, row_to_json(a) AS account
         FROM tokens t JOIN accounts a ON a.id = t.account_id WHERE t.secret_hash = ANY($1)
       UNION ALL
       SELECT 'account', a.key_hash, NULL, row_to_json(a) FROM accounts a WHERE a.key_hash = ANY($1)
       UNION ALL
       SELECT 'retired_account_key', r.key_hash, NULL, row_to_json(a)
         FROM retired_account_keys r JOIN accounts a ON a.id = r.account_id WHERE r.key_hash = ANY($1)`,
      [hashes],
    );
    const found = new Map<string, Credential>();
    for (const row of rows) {
      const account = accountFromRow(row.account as Row);
      const hash = row.hash as string;
      if (row.kind === 'send') found.set(hash, { kind: 'send', token: tokenOf(row.token as Row), account });
      else if (row.kind === 'account') found.set(hash, { kind: 'account', account });
      else found.set(hash, { kind: 'retired_account_key', account });
    }
    return hashes.map((hash) => found.get(hash));
  };
  // Lookups do not wait for each other: any number run at once.
  const credentials = new TurnBatcher<string, Credential | undefined>(lookUp, {
    maxInFlight: Number.POSITIVE_INFINITY,
  });

  return { findCredential: (secretHash: string) => credentials.add(secretHash) };
}
