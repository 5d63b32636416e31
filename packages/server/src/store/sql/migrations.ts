/**
 * The migrations both databases run alike, written once: their column types and boolean tests as
 * each database words them (`t`). Each database's schema (sqlite/schema.ts, postgres/schema.ts)
 * lists them among its own, which differ in more than words, at the numbers they shipped as.
 * Append; never edit one that has shipped.
 */
export interface ColumnWords {
  /** Epoch milliseconds. */
  time: 'INTEGER' | 'BIGINT';
  bool: 'INTEGER' | 'BOOLEAN';
  /** A device that is active, and one that is not, as the partial indexes say it. */
  active: 'active = 1' | 'active';
  inactive: 'active = 0' | 'NOT active';
}

export const sharedMigrations = (t: ColumnWords): string[] => [
  // A device reached by Web Push: its subscription's keys (and the address its web app was
  // served from) beside the endpoint, which takes the push token's place and its uniqueness.
  // Accounts merged into another keep their row (their key gets account_merged). Devices that
  // link themselves: the app's own id for itself, the hash of its device key and when
  // the key was revoked (its device removed: a push address gone stale revokes nothing, so the app
  // can register a new one), and since when its push address is the one it has. Link requests, and
  // the wrong codes each account gave, for its lock.
  `
  ALTER TABLE accounts ADD COLUMN merged_into TEXT;
  ALTER TABLE devices ADD COLUMN web_push TEXT;
  ALTER TABLE devices ADD COLUMN client_id TEXT;
  ALTER TABLE devices ADD COLUMN key_hash TEXT;
  ALTER TABLE devices ADD COLUMN key_revoked_at ${t.time};
  ALTER TABLE devices ADD COLUMN push_since ${t.time};
  CREATE UNIQUE INDEX devices_key ON devices(key_hash) WHERE key_hash IS NOT NULL;
  CREATE INDEX devices_active_client ON devices(client_id) WHERE ${t.active} AND client_id IS NOT NULL;
  CREATE TABLE link_requests (
    id TEXT PRIMARY KEY,
    code_hash TEXT NOT NULL UNIQUE,
    secret_hash TEXT NOT NULL UNIQUE,
    key_hash TEXT NOT NULL,
    sealed_key TEXT,
    client_id TEXT NOT NULL,
    name TEXT NOT NULL,
    platform TEXT NOT NULL,
    in_auto ${t.bool} NOT NULL,
    push_token TEXT NOT NULL,
    web_push TEXT,
    source_device_id TEXT,
    state TEXT NOT NULL,
    created_at ${t.time} NOT NULL,
    expires_at ${t.time} NOT NULL,
    approved_account_id TEXT,
    approved_device_id TEXT,
    approved_at ${t.time}
  );
  CREATE INDEX link_requests_pending_client ON link_requests(client_id) WHERE state = 'pending';
  CREATE INDEX link_requests_pending_push ON link_requests(push_token) WHERE state = 'pending';
  CREATE INDEX link_requests_approvals ON link_requests(approved_account_id, approved_at)
    WHERE approved_account_id IS NOT NULL;
  CREATE INDEX link_requests_expiry ON link_requests(expires_at);
  CREATE TABLE link_wrong_codes (
    account_id TEXT NOT NULL,
    at ${t.time} NOT NULL
  );
  CREATE INDEX link_wrong_codes_account ON link_wrong_codes(account_id, at);
  `,
  // When each device's key was last used (at most once a minute), so that a person can see a
  // device that stopped opening Foxbell, and a Web Push device gone quiet is called stale.
  `
  ALTER TABLE devices ADD COLUMN last_seen_at ${t.time};
  `,
  // Each device's push provider by name, so that a provider is a module of its own and the store
  // knows none: `push_token` is the address's key and `web_push` its data, for any provider.
  // Added, not renamed: an older process reads the columns it knows while a newer one runs. NULL
  // in a row an older release wrote, before this or beside it in a rolling upgrade (a default would
  // call its Web Push devices APNs ones): read as that release meant it (rows.ts, PROVIDER_SQL).
  `
  ALTER TABLE devices ADD COLUMN provider TEXT;
  ALTER TABLE link_requests ADD COLUMN provider TEXT;
  `,
  // Why a push will not arrive, and why a device is not active, in the interface's words: a
  // destination's reason (failed_permanent, expired), a device's inactive_reason. Added, NULL
  // where a release before this one ended them, also beside it in a rolling upgrade. What the rows
  // tell is filled in: an expired destination is `expired`; a failed one's last status says
  // `gone` (410), `refused` (another 4xx, but 404, which is gone for Web Push and BadPath for
  // APNs) or `attempts_exhausted` (429, 5xx: only ever retried); with no status it cannot tell. A
  // device inactive with its key not revoked, of an account not deleted, was made so by its push
  // service; one whose key was revoked was removed or moved, which the rows cannot tell apart.
  `
  ALTER TABLE destinations ADD COLUMN reason TEXT;
  ALTER TABLE devices ADD COLUMN inactive_reason TEXT;
  UPDATE destinations SET reason = 'expired' WHERE state = 'expired';
  UPDATE destinations SET reason = CASE
      WHEN push_status = 410 THEN 'gone'
      WHEN push_status = 429 OR push_status >= 500 THEN 'attempts_exhausted'
      WHEN push_status >= 400 AND push_status <> 404 THEN 'refused'
    END
    WHERE state = 'failed_permanent';
  UPDATE devices SET inactive_reason = CASE
      WHEN COALESCE(provider, CASE WHEN web_push IS NULL THEN 'apns' ELSE 'web-push' END) = 'apns'
        THEN 'unregistered'
      ELSE 'subscription_gone'
    END
    WHERE ${t.inactive} AND key_revoked_at IS NULL
      AND account_id IN (SELECT id FROM accounts WHERE deleted_at IS NULL);
  `,
];

/**
 * Names that say what the columns hold, for every provider: a device's (and a link request's)
 * push address and its provider's data, and a destination's push id. What else each database
 * does with them is `renamed` (sqlite/schema.ts, postgres/schema.ts). It comes after each
 * database's own migrations of the release before (PostgreSQL's eighth, SQLite's tenth).
 */
export const renameMigration = (renamed: string): string =>
  `
  ALTER TABLE devices RENAME COLUMN push_token TO push_address;
  ALTER TABLE devices RENAME COLUMN web_push TO push_data;
  ALTER TABLE link_requests RENAME COLUMN push_token TO push_address;
  ALTER TABLE link_requests RENAME COLUMN web_push TO push_data;
  ALTER TABLE destinations RENAME COLUMN apns_id TO push_id;
  ${renamed}`;

/**
 * What a row written by a release before the `provider` column means: those releases knew two
 * providers, and told them apart by the provider data (then `web_push`). The stores name no
 * provider but here, for those rows; every row written since says its own. In SQL, of the device
 * (or request) row `v`, and of a row read.
 */
const LEGACY_APNS = 'apns';
const LEGACY_WEB_PUSH = 'web-push';
export const PROVIDER_SQL = (v: string) =>
  `COALESCE(${v}.provider, CASE WHEN ${v}.push_data IS NULL THEN '${LEGACY_APNS}' ELSE '${LEGACY_WEB_PUSH}' END)`;
export const legacyProvider = (data: unknown) => (data == null ? LEGACY_APNS : LEGACY_WEB_PUSH);

/**
 * The advisory lock every registration of a push address takes (PostgreSQL): two accounts
 * registering one phone at once cannot both succeed. Named as the releases before the column's
 * rename named it, so that processes of both exclude each other during a rolling upgrade.
 */
export const addressLock = (key: string) => `push_token:${key}`;
