import { chmodSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { SqliteConnection } from './connection.js';
import type { DatabaseSync } from './database.js';
import { holdFileLock } from './file-lock.js';

/** Lease owners are worker ids (`wrk_…`): safe as file names. */
const OWNER = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Whether the workers holding leases are alive. Each process holds a lock file per worker of its
 * own (`owners/<owner>.lock`) from that worker's first lease until the store closes, so any other
 * process can tell a live owner (its lock is held) from a gone one (the lock can be taken).
 */
export class LeaseOwners {
  readonly #dir: string;
  readonly #held = new Map<string, DatabaseSync>();

  constructor(dataDir: string) {
    this.#dir = path.join(dataDir, 'owners');
    mkdirSync(this.#dir, { recursive: true, mode: 0o700 });
  }

  /** Marks `owner` as this process's, before it takes its first lease. */
  hold(owner: string): void {
    if (this.#held.has(owner) || !OWNER.test(owner)) return;
    const file = this.#fileOf(owner);
    const lock = holdFileLock(file);
    // Held elsewhere: a worker id is random, so this cannot happen but by a copy of the id.
    if (!lock) return;
    chmodSync(file, 0o600);
    this.#held.set(owner, lock);
  }

  /**
   * Ends at once the leases of owners that are provably gone (their process died without
   * releasing them, as by `kill -9`), instead of when each runs out: the next claim takes them
   * over, as it would an expired lease (the attempt counted; the push may have reached APNs).
   * Returns how many leases it ended.
   */
  releaseGone(db: SqliteConnection): number {
    const owners = new Set(
      db
        .all(`SELECT DISTINCT lease_owner FROM destinations WHERE state = 'sending'`)
        .map((row) => row.lease_owner as string),
    );
    for (const file of readdirSync(this.#dir)) {
      if (file.endsWith('.lock')) owners.add(file.slice(0, -'.lock'.length));
    }
    let released = 0;
    for (const owner of owners) {
      if (this.#held.has(owner) || !OWNER.test(owner)) continue;
      const file = this.#fileOf(owner);
      const lock = holdFileLock(file);
      if (!lock) continue;
      // Ended as if long ago (0: whatever the clock says, it has passed): no clock is needed.
      released += db.run(
        `UPDATE destinations SET lease_until = 0 WHERE state = 'sending' AND lease_owner = ?`,
        owner,
      );
      lock.close();
      removeLockFile(file);
    }
    return released;
  }

  /** Lets go of this process's locks, once its workers hold no lease. */
  close(): void {
    for (const [owner, lock] of this.#held) {
      lock.close();
      removeLockFile(this.#fileOf(owner));
    }
    this.#held.clear();
  }

  #fileOf(owner: string): string {
    return path.join(this.#dir, `${owner}.lock`);
  }
}

/** A lock file and the journal SQLite keeps beside it while the lock is held. */
function removeLockFile(file: string): void {
  rmSync(file, { force: true });
  rmSync(`${file}-journal`, { force: true });
}
