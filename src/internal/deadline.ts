// The one deadline race of the package: a promise against a time limit (and an abort signal), leaving no timer and
// no listener behind, and never an unhandled rejection from the promise that lost.

/** What {@link withDeadline} answers when the time ran out (or the signal aborted) first. */
export const TIMED_OUT: unique symbol = Symbol('timed out');

/**
 * `promise`'s value, or {@link TIMED_OUT} once `ms` have passed (an infinite `ms` sets no timer) or `signal` aborts,
 * whichever comes first. A rejection of `promise` before then rejects; after then, it is ignored. The caller decides
 * what running out means (fail, give up, try the next thing).
 *
 * @example
 * const got = await withDeadline(reader.read(), 1000);
 * if (got === TIMED_OUT) return undefined;
 */
export function withDeadline<T>(
  promise: PromiseLike<T>,
  ms: number,
  signal?: AbortSignal,
): Promise<T | typeof TIMED_OUT> {
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (finish: () => void) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      finish();
    };
    const onAbort = () => settle(() => resolve(TIMED_OUT));
    if (signal?.aborted) return resolve(TIMED_OUT);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (Number.isFinite(ms)) timer = setTimeout(onAbort, Math.max(0, ms));
    promise.then(
      (value) => settle(() => resolve(value)),
      (error: unknown) => settle(() => reject(error)),
    );
  });
}
