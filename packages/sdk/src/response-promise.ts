/** What `.withResponse()` gives: the method's value, and the response it was read from. */
export interface WithResponse<T> {
  data: T;
  /** The response's `X-Request-Id`: quote it when reporting a problem. */
  requestId: string | undefined;
  status: number;
  headers: Headers;
}

/**
 * The promise every request method returns: awaited, it gives the value; `.withResponse()` gives
 * the value with the response's request id, status and headers. The value is read from the same
 * single request either way.
 */
export class FoxbellPromise<T> extends Promise<T> {
  readonly #result: Promise<WithResponse<T>>;
  #data: Promise<T> | undefined;

  constructor(result: Promise<WithResponse<T>>) {
    // The base promise is never read: then, catch and finally read from `result`.
    super((resolve) => resolve(undefined as T));
    this.#result = result;
  }

  // What then/catch/finally return is a plain Promise, not one built through this constructor.
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  withResponse(): Promise<WithResponse<T>> {
    return this.#result;
  }

  #value(): Promise<T> {
    this.#data ??= this.#result.then((result) => result.data);
    return this.#data;
  }

  // biome-ignore lint/suspicious/noThenProperty: a promise's own then, reading from the request's result.
  override then<Fulfilled = T, Rejected = never>(
    onfulfilled?: ((value: T) => Fulfilled | PromiseLike<Fulfilled>) | null,
    onrejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<Fulfilled | Rejected> {
    return this.#value().then(onfulfilled, onrejected);
  }

  override catch<Rejected = never>(
    onrejected?: ((reason: unknown) => Rejected | PromiseLike<Rejected>) | null,
  ): Promise<T | Rejected> {
    return this.#value().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#value().finally(onfinally);
  }
}
