// The event stream's reconnect step: how many attempts have failed in a row, when that count starts again, and
// how long to wait before the next connection (the SDK's one backoff, wait.ts). No I/O: the stream's loop
// (event-stream.ts) reports what happened and sleeps for what this says.
import { PspConnectionError } from '../errors.js';
import { backoffDelay } from '../wait.js';

/** Reconnection delay settings of the event stream. */
export interface BackoffOptions {
  /** Delay before the first reconnection attempt, in ms. Default 1000 (a server `retry:` field overrides it, down to 1000). */
  initialDelayMs?: number | undefined;
  /** Ceiling of the delay, in ms. Default 30 000. */
  maxDelayMs?: number | undefined;
}

/** What {@link reconnection} is built from: the stream's options of the same names. */
export interface ReconnectOptions {
  backoff?: BackoffOptions | undefined;
  /** Consecutive failed attempts tolerated; one more throws. Default: never. */
  maxRetries?: number | undefined;
  random?: (() => number) | undefined;
}

/** The reconnection state of one stream. */
export interface Reconnection {
  /** The number of the next connection attempt since the stream last worked (1-based). */
  readonly attempt: number;
  /**
   * A connection opened: starts the clock after which it counts as working. Returns the break it ends (how many
   * attempts it took, and why the previous connection ended), or undefined for the stream's first connection.
   */
  opened(): { attempt: number; reason: string } | undefined;
  /** The connection delivered events: it worked, so the next failure counts from one again. */
  worked(): void;
  /** The connection is over, however it ended; `retryMs` is the server's last `retry:` field, if it sent one. */
  closed(retryMs?: number): void;
  /**
   * The connection failed or ended, for `reason`: the failed attempt's number, and the wait in ms before the next
   * (what `onDisconnect` reports). Throws a `PspConnectionError` once more than `maxRetries` attempts in a row
   * have failed.
   */
  broke<R extends string>(reason: R, retryAfterMs?: number): { attempt: number; reason: R; delayMs: number };
}

// A connection open this long has really worked (more than one 25 s heartbeat): only then do failures restart
// from zero. `: connected` alone does not count; a server that greets and then fails would never reach maxRetries.
export const STABLE_MS = 30_000;
// A server's Retry-After is honoured up to 10 minutes: a stream that silently waits for days helps nobody.
const MAX_RETRY_AFTER_MS = 600_000;

/**
 * The reconnection policy: jittered exponential backoff (equal jitter: between half and all of
 * `initialDelayMs` x 2^(n-1), capped at `maxDelayMs`) from the app's `initialDelayMs`, else the server's
 * `retry:`, else 1 s; a readable `Retry-After` instead, up to 10 minutes (`Retry-After: 0` or a past date counts
 * as absent: honoured, it would reconnect at once, without end).
 *
 * @example
 * const r = reconnection({ maxRetries: 5 });
 * r.broke('http_503', 3000); // { attempt: 1, reason: 'http_503', delayMs: 3000 }
 */
export function reconnection(options: ReconnectOptions = {}): Reconnection {
  let failures = 0;
  let serverRetryMs: number | undefined;
  let lastReason: string | undefined;
  let stable: ReturnType<typeof setTimeout> | undefined;
  return {
    get attempt() {
      return failures + 1;
    },
    opened() {
      stable = setTimeout(() => (failures = 0), STABLE_MS);
      return lastReason === undefined ? undefined : { attempt: failures, reason: lastReason };
    },
    worked() {
      failures = 0;
    },
    closed(retryMs) {
      clearTimeout(stable);
      if (retryMs !== undefined) serverRetryMs = retryMs;
    },
    broke(reason, retryAfterMs) {
      failures++;
      if (options.maxRetries !== undefined && failures > options.maxRetries)
        throw new PspConnectionError(`Event stream gave up after ${failures} failed attempts (${reason}).`);
      lastReason = reason;
      const { initialDelayMs = serverRetryMs ?? 1000, maxDelayMs = 30_000 } = options.backoff ?? {};
      const delayMs = retryAfterMs
        ? Math.min(retryAfterMs, MAX_RETRY_AFTER_MS)
        : backoffDelay(
            failures,
            { firstMs: initialDelayMs, maxMs: maxDelayMs, jitter: 'equal' },
            options.random,
          );
      return { attempt: failures, reason, delayMs };
    },
  };
}
