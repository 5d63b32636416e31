import DataLoader from 'dataloader';

export interface TurnBatcherOptions {
  /** Items in one batch at most: more arriving in one turn make several batches. Default: no limit. */
  maxBatch?: number;
  /** Batches running at once at most. Default 1. */
  maxInFlight?: number;
  /** Whether a batch may start now. When the hold ends, call `release`. Default: always. */
  ready?: () => boolean;
}

/**
 * What arrives in one turn of the event loop, run as one batch: sends admitted in one
 * transaction, attempt ends recorded in one, credentials looked up in one query. DataLoader
 * collects the batch (its batching without its cache); this adds the back-pressure: while
 * `maxInFlight` batches run, or `ready` says no (an fsync is running), the next batch waits and
 * keeps growing, so under load a commit covers more items instead of queueing more commits.
 *
 * A batch starts at a later turn (setImmediate, not a microtask), so requests whose bytes are
 * already read join it.
 */
export class TurnBatcher<T, R> {
  readonly #loader: DataLoader<T, R>;
  readonly #maxInFlight: number;
  readonly #ready: () => boolean;
  /** Batches collected and not yet started, oldest first. */
  readonly #waiting: (() => void)[] = [];
  #inFlight = 0;
  #scheduled = false;
  /** `release` was called: the next start ignores `ready` once. */
  #released = false;
  readonly #whenIdle: (() => void)[] = [];

  /** `run` resolves each item of a batch, in order, with its result or an Error to reject it with. */
  constructor(
    run: (items: readonly T[]) => Promise<readonly (R | Error)[]>,
    options: TurnBatcherOptions = {},
  ) {
    this.#maxInFlight = options.maxInFlight ?? 1;
    this.#ready = options.ready ?? (() => true);
    this.#loader = new DataLoader<T, R>(
      // DataLoader calls this as it starts a batch, so the count is right for the next check.
      async (items) => {
        this.#inFlight += 1;
        try {
          return await run(items);
        } finally {
          this.#inFlight -= 1;
          this.#schedule();
        }
      },
      {
        cache: false,
        maxBatchSize: options.maxBatch ?? Number.POSITIVE_INFINITY,
        batchScheduleFn: (start) => {
          this.#waiting.push(start);
          this.#schedule();
        },
      },
    );
  }

  /** Adds an item to the batch being collected; resolves with its result. */
  add(item: T): Promise<R> {
    return this.#loader.load(item);
  }

  /**
   * The hold `ready` described has ended: the batches it held back start at the next turn, whatever
   * `ready` says by then. (Under a stream of other writes a new fsync is nearly always running by
   * the next turn; waiting for a turn when none is would hold sends back without end.)
   */
  release(): void {
    if (this.#waiting.length === 0) return;
    this.#released = true;
    this.#schedule();
  }

  /** Starts, at the next turn, as many waiting batches as the limits allow. */
  #schedule(): void {
    if (this.#scheduled) return;
    if (this.#waiting.length === 0) {
      if (this.#inFlight === 0) for (const resolve of this.#whenIdle.splice(0)) resolve();
      return;
    }
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      const released = this.#released;
      this.#released = false;
      while (this.#waiting.length > 0 && this.#inFlight < this.#maxInFlight && (released || this.#ready())) {
        (this.#waiting.shift() as () => void)();
      }
      if (this.#waiting.length === 0 && this.#inFlight === 0) this.#schedule();
    });
  }

  /** Resolves once no batch waits or runs: everything added so far is settled. */
  idle(): Promise<void> {
    if (this.#waiting.length === 0 && this.#inFlight === 0 && !this.#scheduled) return Promise.resolve();
    return new Promise((resolve) => this.#whenIdle.push(resolve));
  }
}
