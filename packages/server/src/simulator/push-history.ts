/** How much the simulator remembers: what the device page and tests need, never without end. */
export interface HistoryBounds {
  /** Pushes kept per push token, newest kept. */
  perDevice: number;
  /** Pushes kept in all, newest kept. */
  total: number;
}

export const DEFAULT_HISTORY: HistoryBounds = { perDevice: 100, total: 10_000 };

interface Entry<T> {
  seq: number;
  key: string;
  item: T;
}

/**
 * The newest pushes per push token and in all, in arrival order, and counts of everything ever
 * recorded (which a benchmark reads when the history is too short to hold a whole run).
 */
export class PushHistory<T> {
  readonly #bounds: HistoryBounds;
  /** Per key, oldest first: a subsequence of `#order`. */
  readonly #byKey = new Map<string, Entry<T>[]>();
  /** Every entry still held, and some evicted per key, oldest first from `#head`. */
  #order: Entry<T>[] = [];
  #head = 0;
  #held = 0;
  #seq = 0;
  #counts = new Map<string, number>();

  constructor(bounds: HistoryBounds = DEFAULT_HISTORY) {
    this.#bounds = bounds;
  }

  add(key: string, item: T, countAs: string): void {
    const entry = { seq: this.#seq++, key, item };
    let entries = this.#byKey.get(key);
    if (!entries) {
      entries = [];
      this.#byKey.set(key, entries);
    }
    entries.push(entry);
    this.#order.push(entry);
    this.#held += 1;
    this.#counts.set(countAs, (this.#counts.get(countAs) ?? 0) + 1);
    if (entries.length > this.#bounds.perDevice) {
      entries.shift();
      this.#held -= 1;
    }
    while (this.#held > this.#bounds.total) {
      const oldest = this.#order[this.#head++] as Entry<T>;
      if (this.#isHeld(oldest)) this.#evictOldestOf(oldest.key);
    }
    // Drop the evicted prefix now and then, so the array does not grow without end either.
    if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#head).filter((entry) => this.#isHeld(entry));
      this.#head = 0;
    }
  }

  /** Held items, oldest first; of one key when given. */
  items(key?: string): T[] {
    if (key !== undefined) return (this.#byKey.get(key) ?? []).map((entry) => entry.item);
    const items: T[] = [];
    for (let i = this.#head; i < this.#order.length; i += 1) {
      const entry = this.#order[i] as Entry<T>;
      if (this.#isHeld(entry)) items.push(entry.item);
    }
    return items;
  }

  /** How many were ever recorded (since the last clear), by what they counted as. */
  counts(): Record<string, number> {
    return Object.fromEntries(this.#counts);
  }

  clear(): void {
    this.#byKey.clear();
    this.#order = [];
    this.#head = 0;
    this.#held = 0;
    this.#counts = new Map();
  }

  /** A key's entries are in arrival order, so an entry is held when it is not older than its key's oldest. */
  #isHeld(entry: Entry<T>): boolean {
    const first = this.#byKey.get(entry.key)?.[0];
    return first !== undefined && entry.seq >= first.seq;
  }

  #evictOldestOf(key: string): void {
    const entries = this.#byKey.get(key) as Entry<T>[];
    entries.shift();
    this.#held -= 1;
    if (entries.length === 0) this.#byKey.delete(key);
  }
}
