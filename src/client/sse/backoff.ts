/** Reconnection delay settings of the event stream. */
export interface BackoffOptions {
  /** Delay before the first reconnection attempt, in ms. Default 1000 (a server `retry:` field overrides it, down to 1000). */
  initialDelayMs?: number | undefined;
  /** Ceiling of the delay, in ms. Default 30 000. */
  maxDelayMs?: number | undefined;
}

/**
 * The delay before reconnection attempt `attempt` (1-based): exponential, capped, with "equal jitter" (a random
 * point in the upper half) so that many clients cut off together do not reconnect in lockstep.
 *
 * @example
 * backoffDelay(3, { initialDelayMs: 1000 }, Math.random); // between 2000 and 4000
 */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const { initialDelayMs = 1000, maxDelayMs = 30_000 } = options;
  const ceiling = Math.min(maxDelayMs, initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/**
 * Resolves after `ms`, or at once when `signal` aborts; never rejects.
 *
 * @example
 * await sleep(1000, stop.signal);
 */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
