import type { DestinationState } from '@foxbell/sdk/contract';
import type { HandledAction } from '@foxbell/sdk/server-contract';
import type { Account, AccountMerge, Credential } from '../model/accounts.js';
import type { NewSend, SendOutcome } from '../model/admission.js';
import type { Device, PushAddress } from '../model/devices.js';
import type {
  ClaimedDestination,
  EndedDestination,
  FinishedAttempt,
  LeasedKey,
  RecordedEnds,
} from '../model/leases.js';
import type { LinkApproval, LinkDevice, LinkLimits, LinkRequest } from '../model/links.js';
import type { InboxPage, StoredNotification } from '../model/notifications.js';
import type { RouteDecision, RouteInput } from '../model/routing.js';
import type { SendToken } from '../model/tokens.js';

/**
 * The storage interface: what the server keeps, in the model's terms (model/), and nothing of
 * either database. sqlite/ and postgres/ implement it.
 */

/** A device key's device and account: `revoked` once its device was removed (not when its push address went stale). */
export interface DeviceCredential {
  device: Device;
  account: Account;
  revoked: boolean;
}

export interface NewLinkRequest {
  id: string;
  codeHash: string;
  secretHash: string;
  /** The hash of the device key the app gets once approved, made with the request. */
  keyHash: string;
  sealedKey: string;
  device: LinkDevice;
  /** The device's registration in the account it leaves, when it switches (its own doesn't count as taken). */
  sourceDeviceId: string | null;
  now: number;
  expiresAt: number;
}

export type { RateLimits } from '../kernel/limits.js';

export interface Pause {
  paused: boolean;
  retryAfterSeconds: number;
}

/**
 * How many revoked or expired tokens, and removed devices, an account's lists show (the newest):
 * however many a script made and retired, a list stays small.
 */
export const RETIRED_LISTED = 50;

/** A device to register: its fields but those the store sets (active, and the time, given as `now`). */
export type NewDevice = Omit<
  Device,
  'active' | 'inactiveReason' | 'createdAt' | 'clientId' | 'addressSince' | 'lastSeenAt'
> & {
  now: number;
};

/**
 * Everything the server keeps. Rows are mapped to these types inside each implementation, so no
 * row shape leaks out. Every method that changes more than one row does it in one transaction.
 */
export interface Store
  extends CredentialsPart,
    DevicesPart,
    SendsPart,
    RecordsPart,
    RoutingPart,
    LeasesPart,
    LinksPart,
    SettingsPart,
    RetentionPart,
    HealthPart {
  /**
   * Calls `onQueued` when a process accepts a send (soon after its commit), for a worker in another
   * process to look at once rather than at its next poll; undefined where the database cannot tell
   * other processes (SQLite: a worker in the API's own process is told directly). A hint only:
   * signals may be lost (while the connection is down, it is made again), so the poll stays.
   */
  watchQueue?(onQueued: () => void): Promise<{ close(): Promise<void> }>;

  close(): Promise<void>;
}

/* The store's concerns, of which the store is the union: most are written once for both databases
   (store/sql/), the rest by each database in its folder (see sql/assemble.ts). */
export interface CredentialsPart {
  findCredential(secretHash: string): Promise<Credential | undefined>;

  createAccount(account: { id: string; name: string | null; keyHash: string; now: number }): Promise<Account>;
  /**
   * Merges `mergedId` (and the accounts merged into it before) into `canonicalId`, in one
   * transaction: its devices (but those of a device id the canonical one has, which are removed),
   * send tokens, notifications and link approvals move; its key then answers `account_merged`;
   * pending switch requests of a device it had are superseded. Nothing changes when the group
   * would pass `groupMax` accounts or the devices limit.
   */
  mergeAccounts(merge: {
    canonicalId: string;
    mergedId: string;
    now: number;
    limits: { groupMax: number; devices: number };
  }): Promise<AccountMerge>;
  /** Replaces the account key; the old one is kept only to answer `key_rotated`. */
  rotateAccountKey(
    accountId: string,
    change: { keyHash: string; expectedGeneration: number | undefined; now: number },
  ): Promise<{ ok: true; generation: number } | { ok: false; generation: number }>;
  deleteAccount(accountId: string, now: number): Promise<void>;

  createToken(
    token: Omit<SendToken, 'revokedAt'>,
    secretHash: string,
    maxTokens: number,
  ): Promise<SendToken | 'limit_reached'>;
  /** Live tokens, and the RETIRED_LISTED newest revoked or expired ones, oldest first. */
  listTokens(accountId: string, now: number): Promise<SendToken[]>;
  /** Revokes a token and drops its notifications that are not yet routed. False when there is no such token. */
  revokeToken(accountId: string, tokenId: string, now: number): Promise<boolean>;
}

export interface DevicesPart {
  /**
   * Registers a device. A push token active in this account already is `device_exists`; one active
   * in another account moves here: the other account's device is removed (as by removeDevice), so
   * the answer is the same as for a push token never seen, and says nothing of other accounts.
   */
  createDevice(device: NewDevice, maxDevices: number): Promise<Device | 'limit_reached' | 'device_exists'>;
  listDevices(accountId: string, options: { activeOnly: boolean }): Promise<Device[]>;
  updateDevice(
    accountId: string,
    deviceId: string,
    change: { name?: string; inAuto?: boolean },
  ): Promise<Device | undefined>;
  /** Removes a device; its destinations still waiting become `skipped`. False when there is no such device. */
  removeDevice(accountId: string, deviceId: string, now: number): Promise<boolean>;
  /**
   * A linked app's change to its own device (by its device key, which its removal revokes): a
   * name, `auto`, or a new push address, which makes the device active again (its old one may
   * have gone stale), if the account has room for one more active device. A push address another
   * active device has is `device_exists`; a key revoked since the request was authenticated (the
   * device moved or was removed meanwhile) is `key_revoked`.
   */
  updateOwnDevice(
    device: { id: string; accountId: string },
    change: { name?: string; inAuto?: boolean; address?: PushAddress },
    now: number,
    maxDevices: number,
  ): Promise<Device | 'device_exists' | 'limit_reached' | 'key_revoked'>;
  /** A linked app leaves: its device is removed and its key revoked. */
  removeOwnDevice(deviceId: string, now: number): Promise<void>;
  /** Its device key was used now. */
  markDeviceSeen(deviceId: string, now: number): Promise<void>;
}

export interface SendsPart {
  /**
   * Admits and stores a send in one durable transaction: an idempotent replay or conflict, then
   * the rate windows and the monthly quota, then the notification and its queue entry. Resolves
   * only once the transaction is on disk.
   */
  acceptSend(send: NewSend): Promise<SendOutcome>;
  monthlyCount(accountId: string, now: number): Promise<number>;
}

export interface RecordsPart {
  getNotification(id: string): Promise<StoredNotification | undefined>;
  recordEvent(event: {
    accountId: string;
    notificationId: string;
    deviceId: string;
    action: HandledAction;
    now: number;
  }): Promise<'recorded' | 'no_notification' | 'not_routed'>;
  inbox(
    accountId: string,
    page: { after: { createdAt: number; id: string } | undefined; limit: number; since: number },
  ): Promise<InboxPage>;
}

export interface RoutingPart {
  /**
   * Routes up to `limit` queued notifications that are due, oldest first: each becomes dropped,
   * or gets one destination per device `decide` chose. A tagged destination supersedes the same
   * tag's destinations still waiting on that device, and those of its devices this call leased.
   *
   * With `lease`, up to `lease.limit` of the new destinations are leased to `lease.owner` at once,
   * as `claimDestinations` would (their first attempt counted), and returned; the others wait as
   * `pending`. Routing may then stop before `limit` once that many are leased, leaving the rest
   * queued: a worker routes what it can push, and a send is written once on its way out.
   */
  routeQueued(options: {
    now: number;
    limit: number;
    decide: (input: RouteInput) => RouteDecision;
    lease?: {
      owner: string;
      leaseMs: number;
      limit: number;
      /** The providers whose leased destinations carry their device's unread count (`unread`). */
      unreadFor: readonly string[];
    };
  }): Promise<{ routed: number; claimed: ClaimedDestination[] }>;
}

export interface LeasesPart {
  /**
   * Expires waiting destinations past their notification's deadline, then leases up to `limit`
   * due ones (and ones whose lease ran out) to `owner` until `now + leaseMs`, counting an attempt.
   * `ended` are the destinations it ended itself: expired, or failed for good with their last
   * attempt's lease run out (its worker died).
   */
  claimDestinations(options: {
    owner: string;
    now: number;
    leaseMs: number;
    limit: number;
    maxAttempts: number;
    /** The providers whose leased destinations carry their device's unread count (`unread`). */
    unreadFor: readonly string[];
  }): Promise<{ claimed: ClaimedDestination[]; ended: EndedDestination[] }>;
  /** Records the end of attempts, in one transaction; returns what they ended and deactivated. */
  finishAttempts(attempts: FinishedAttempt[], now: number): Promise<RecordedEnds>;
  /**
   * Extends the leases `owner` still holds on these destinations (pushes it has in flight) until
   * `until`; those another worker took over, or that ended, are left alone. Returns how many it
   * extended.
   */
  renewLeases(lease: { owner: string; until: number; destinations: LeasedKey[] }): Promise<number>;
  /** The earliest time delivery has something to do, or undefined when nothing waits. */
  nextDeliveryAt(): Promise<number | undefined>;
}

export interface LinksPart {
  /**
   * Stores a link request, unless its device id or push address is already an active device's
   * (in any account) or another pending request's: `device_exists`.
   */
  createLinkRequest(request: NewLinkRequest): Promise<'created' | 'device_exists'>;
  /**
   * What still uses an account besides one of its devices: its live send tokens and its other
   * active devices (a device switching away asks before it leaves the account behind).
   */
  accountUse(
    accountId: string,
    exceptDeviceId: string,
    now: number,
  ): Promise<{ tokens: number; otherDevices: number }>;
  /** The link request a poll secret belongs to (its id), by the secret's hash. */
  findLinkSecret(secretHash: string): Promise<string | undefined>;
  findDeviceKey(keyHash: string): Promise<DeviceCredential | undefined>;
  getLinkRequest(id: string): Promise<LinkRequest | undefined>;
  /** The sealed device key of an approved request, once: it is gone from the store after. */
  takeSealedKey(id: string): Promise<string | null>;
  /** Cancels a pending request (one past its expiry too); the request as it is after. */
  cancelLinkRequest(id: string): Promise<LinkRequest | undefined>;
  /**
   * Approves the request of `codeHash` into `accountId`, registering its device as `deviceId`, in
   * one transaction and this order: the account's lock (wrong codes), the code (no request has it:
   * counted as a wrong code), the request's state, the approvals limit, the devices limit.
   * `codeHash` undefined is a code that cannot exist.
   */
  approveLink(approval: {
    codeHash: string | undefined;
    accountId: string;
    deviceId: string;
    now: number;
    limits: LinkLimits;
  }): Promise<LinkApproval>;
}

export interface SettingsPart {
  getPause(): Promise<Pause>;
  setPause(pause: Pause): Promise<void>;
  getSetting(name: string): Promise<string | undefined>;
  setSetting(name: string, value: string): Promise<void>;
  /**
   * Keeps `value` under `name` unless a value is there already, and returns the one kept: of
   * processes that make one at the same moment (a key pair), every one gets the first.
   */
  settingOnce(name: string, value: string): Promise<string>;
}

export interface RetentionPart {
  /**
   * Deletes notifications created before `notificationsBefore`, idempotency keys made before
   * `keysBefore`, rate-window counts of seconds before `windowsBefore`, and tokens revoked or
   * expired, devices removed and account keys replaced before `credentialsBefore` (the same
   * retention as notifications: no notification kept can name them; a key replaced longer ago
   * than that is unknown rather than `key_rotated`). At most `batch` rows of each kind, in one
   * transaction, notifications and idempotency keys the oldest first: a sweep calls it until each
   * kind deletes fewer (see sweepRetention).
   */
  purge(cutoffs: Cutoffs, batch: number): Promise<Purged>;
  /**
   * Makes the room of the rows `purge` deleted (`purged`: how many of each kind) usable by new
   * rows, whatever upkeep the database does of its own (PostgreSQL's autovacuum may be off, and
   * its tables then grow with every row ever deleted): a sweep calls it once it deleted something.
   * It takes no lock that sends wait on.
   */
  reclaim(purged: Purged): Promise<void>;
}

/** What a purge deletes rows before (see RetentionPart.purge). */
export interface Cutoffs {
  notificationsBefore: number;
  keysBefore: number;
  windowsBefore: number;
  credentialsBefore: number;
  wrongCodesBefore: number;
}

/** How many rows of each kind a purge deleted. */
export interface Purged {
  notifications: number;
  keys: number;
  windows: number;
  tokens: number;
  devices: number;
  accountKeys: number;
  linkRequests: number;
  wrongCodes: number;
}

export interface HealthPart {
  /**
   * Whether the database answers with every migration of this release applied; throws when it
   * does not answer. Reads only.
   */
  schemaCurrent(): Promise<boolean>;
  /**
   * Whether this process could write now: PostgreSQL not a read-only standby nor in read-only
   * transactions; SQLite's file and folder writable. Writes nothing.
   */
  canWrite(): Promise<boolean>;
  /** What waits and what was delivered, for metrics: one query for the queue, one for the destinations. */
  queueStats(): Promise<{ depth: number; oldestCreatedAt: number | undefined }>;
  destinationCounts(): Promise<Partial<Record<DestinationState, number>>>;
}
