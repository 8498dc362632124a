/**
 * What `withResponse()` gives: the parsed data plus facts about the exchange that are not wire data.
 *
 * @example
 * const { data, response, idempotencyKey, attempts } = await client.payments.create({ amount: 100 }).withResponse();
 */
export interface ApiResult<T> {
  /** The parsed response body, exactly what awaiting the call returns. */
  data: T;
  /** The final HTTP response (its body already read). */
  response: Response;
  /** The `Idempotency-Key` sent (create calls): store it to resend the same call safely. */
  idempotencyKey: string | undefined;
  /** Attempts made, 1 when there was no retry. */
  attempts: number;
  /** The server's request id (`X-Request-Id`), when it sends one. */
  requestId: string | undefined;
}

/**
 * The promise every method returns: await it for the data, or call `withResponse()` for the data plus the
 * response, the `Idempotency-Key` and the attempt count. The key is kept off the data so that the objects stay
 * exactly the wire's.
 *
 * @example
 * const payment = await client.payments.get(id);
 * const { data, idempotencyKey } = await client.payments.create({ amount: 100 }).withResponse();
 */
export class ApiPromise<T> implements PromiseLike<T> {
  readonly #result: Promise<ApiResult<T>>;
  #data: Promise<T> | undefined;

  constructor(result: Promise<ApiResult<T>>) {
    this.#result = result;
  }

  /** The data together with the response, the Idempotency-Key and the attempt count. */
  withResponse(): Promise<ApiResult<T>> {
    return this.#result;
  }

  #dataPromise(): Promise<T> {
    this.#data ??= this.#result.then((r) => r.data);
    return this.#data;
  }

  // biome-ignore lint/suspicious/noThenProperty: this object is a promise by design
  then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#dataPromise().then(onfulfilled, onrejected);
  }

  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#dataPromise().catch(onrejected);
  }

  finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#dataPromise().finally(onfinally);
  }

  get [Symbol.toStringTag](): string {
    return 'ApiPromise';
  }
}
