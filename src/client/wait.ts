// One way of waiting for everything in the SDK that tries again: calls (retry.ts, transport.ts), the event
// stream's reconnections (sse/reconnect.ts), `waitFor` (resources/wait-for.ts) and the leases of
// psp-sdk/replicas. They differ in their numbers (a call's first wait is 0.3 s, a reconnection's 1 s), not in
// how a wait is reckoned, which answers are worth another attempt, or how a wait ends early.

/**
 * Whether an answer with this status is worth another attempt: 408 and 429 ("later, please"), 500 and 502 and
 * above (the server's trouble). 501 Not Implemented is final, the server says it will never do it; so is every
 * other 4xx, 413 included: none heals by asking again (docs/spec-decisions.md).
 *
 * @example
 * worthRetrying(503); // true
 * worthRetrying(501); // false
 */
export const worthRetrying = (status: number): boolean =>
  status === 408 || status === 429 || status === 500 || status >= 502;

/** How the waits between tries grow: doubling from `firstMs`, never above `maxMs`, spread by `jitter`. */
export interface Backoff {
  /** The wait's ceiling before the first retry, in ms. */
  readonly firstMs: number;
  /** Ceiling of every wait, in ms. */
  readonly maxMs: number;
  /**
   * `full`: anywhere below the doubled wait, then capped (a retry may follow at once); `equal`: in the upper half
   * of the capped wait (never at once, for connections many clients reopen together); `none`: the capped wait.
   */
  readonly jitter: 'full' | 'equal' | 'none';
}

/**
 * The wait before try `attempt + 1`, after `attempt` (1-based) failed tries.
 *
 * @example
 * backoffDelay(3, { firstMs: 1000, maxMs: 30_000, jitter: 'equal' }, Math.random); // between 2000 and 4000
 */
export function backoffDelay(attempt: number, b: Backoff, random: () => number = Math.random): number {
  const doubled = b.firstMs * 2 ** Math.max(0, attempt - 1);
  if (b.jitter === 'full') return Math.min(b.maxMs, doubled * random());
  const ceiling = Math.min(b.maxMs, doubled);
  return b.jitter === 'equal' ? Math.round(ceiling / 2 + (ceiling / 2) * random()) : ceiling;
}

/** One-shot timers: real ones by default; the leases pass their clock's, so a test moves them with it. */
export interface Timers {
  setTimer(delayMs: number, fn: () => void): { cancel(): void };
}

/** Real time: `setTimeout`. */
export const realTimers: Timers = {
  setTimer(delayMs, fn) {
    const handle = setTimeout(fn, delayMs);
    return { cancel: () => clearTimeout(handle) };
  },
};

/**
 * Resolves after `ms`, or as soon as `signal` aborts (at once if it already has); never rejects, so the caller
 * decides what an abort means. Leaves no timer and no listener behind.
 *
 * @example
 * await sleep(1000, stop.signal);
 */
export function sleep(ms: number, signal?: AbortSignal, timers: Timers = realTimers): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      timer.cancel();
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = timers.setTimer(ms, done);
    signal?.addEventListener('abort', done);
  });
}
