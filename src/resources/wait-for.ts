import {
  hide,
  named,
  PspApiError,
  PspConnectionError,
  PspError,
  PspValidationError,
} from '../client/errors.js';
import type { StreamTap } from '../client/event-stream.js';
import { checkNumber } from '../client/options.js';
import { backoffDelay, sleep, worthRetrying } from '../client/wait.js';
import type { FieldIssue } from '../schemas/issues.js';
import type { SseEvent } from '../schemas/events.js';

/**
 * Options of `client.payments.waitFor()` and `client.payouts.waitFor()`.
 *
 * @example
 * await client.payments.waitFor(id, { until: ['succeeded'], timeout: 120_000, signal: AbortSignal.timeout(300_000) });
 */
export interface WaitForOptions<S extends string = string> {
  /** The statuses to wait for. Default: every final status (spec 3: payments `succeeded`, `failed`, `expired`, `cancelled`, `refunded`; payouts `succeeded`, `failed`). */
  until?: readonly S[] | undefined;
  /** How long to wait in all, in milliseconds, before rejecting with {@link WaitTimeoutError}. Default 600 000. */
  timeout?: number | undefined;
  /** Ends the wait: the call rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** The first delay between two reads when polling, in milliseconds; it doubles up to 30 s. Default 1000. */
  pollInterval?: number | undefined;
}

/**
 * `waitFor` ran out of time before the object reached a status of `until`. `last` is the last object read
 * (`undefined` if no read succeeded).
 *
 * @example
 * catch (err) { if (err instanceof WaitTimeoutError) console.log('still', err.last?.status); }
 */
export class WaitTimeoutError<T = unknown> extends PspError {
  static {
    named(WaitTimeoutError, 'WaitTimeoutError');
  }

  /** The last object read before the time ran out. */
  declare readonly last: T | undefined;

  constructor(message: string, last: T | undefined) {
    super(message);
    // Out of toJSON and util.inspect: a whole payment is too much for an error line.
    hide(this, 'last', last);
  }
}

/** What `waitFor` needs of a resource. */
export interface Waitable<T> {
  /** Reads the object (its GET), aborted by `signal`. */
  get(signal: AbortSignal): PromiseLike<T>;
  /** The SSE kinds whose payload (`{ id, status }`) is about objects of this resource. */
  kinds: readonly string[];
  id: string;
  final: readonly string[];
  /** The client's open event streams, when it has any. */
  tap: StreamTap | undefined;
}

/** Final payment statuses (spec 3.1; `succeeded` may still become `refunded`, see docs/spec-decisions.md). */
export const FINAL_PAYMENT_STATUSES = ['succeeded', 'failed', 'expired', 'cancelled', 'refunded'] as const;
/** Final payout statuses (spec 3.3). */
export const FINAL_PAYOUT_STATUSES = ['succeeded', 'failed'] as const;
/** The SSE kinds whose payload carries a payment's or a payout's `{ id, status }` (spec 6.2). */
export const PAYMENT_KINDS = ['payment.created', 'payment.status_changed'] as const;
export const PAYOUT_KINDS = ['payout.created', 'payout.status_changed'] as const;

const MAX_POLL = 30_000;
const MAX_TIMER = 2_147_483_647;
const TIMED_OUT = Symbol('timed out');

/** Failures a later read may not meet: no answer, a timeout, or an answer worth another attempt (wait.ts). */
const transient = (err: unknown): boolean =>
  err instanceof PspConnectionError || (err instanceof PspApiError && worthRetrying(err.status));

/**
 * Resolves with the object once its status is in `until` (at once if it already is). While the client has an
 * event stream open it wakes on that stream's events (and reads again every 30 s, since the stream is best
 * effort); otherwise it polls with backoff. Rejects with {@link WaitTimeoutError} on timeout, with the signal's
 * reason on abort, and with the read's error when it is not transient. Nothing it starts outlives it.
 *
 * @example
 * const paid = await waitFor({ get: (signal) => payments.get(id, { signal }), kinds, id, final, tap }, {});
 */
export async function waitFor<T extends { status: string }>(
  w: Waitable<T>,
  options: WaitForOptions = {},
): Promise<T> {
  const issues: FieldIssue[] = [];
  const timeout = checkNumber(issues, 'timeout', options.timeout, 600_000, 1, MAX_TIMER);
  const interval = checkNumber(issues, 'pollInterval', options.pollInterval, 1000, 1, MAX_TIMER);
  const until = options.until ?? w.final;
  if (!Array.isArray(until) || until.length === 0 || !until.every((s) => typeof s === 'string'))
    issues.push({ field: 'until', message: 'must be a non-empty array of statuses' });
  if (issues.length > 0) throw new PspValidationError(issues, 'waitFor options');
  const { signal } = options;
  if (signal?.aborted) throw signal.reason;

  const stop = new AbortController();
  const onAbort = () => stop.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => stop.abort(TIMED_OUT), timeout);
  let wake: (() => void) | undefined;
  const listener = (ev: SseEvent | undefined) => {
    // A break in the stream may have lost the event: read again.
    if (!ev) wake?.();
    else if (
      w.kinds.includes(ev.kind) &&
      ev.payload.id === w.id &&
      until.includes(ev.payload.status as string)
    )
      wake?.();
  };
  w.tap?.listeners.add(listener);
  let last: T | undefined;
  try {
    for (let n = 0; !stop.signal.aborted; n++) {
      try {
        last = await w.get(stop.signal);
        if (until.includes(last.status)) return last;
      } catch (err) {
        if (stop.signal.aborted) break;
        if (!transient(err)) throw err;
      }
      const live = (w.tap?.live ?? 0) > 0;
      const delay = live
        ? MAX_POLL
        : backoffDelay(n + 1, { firstMs: interval, maxMs: Math.max(MAX_POLL, interval), jitter: 'none' });
      // The wait ends early on the stream's news (`wake`) as on the end of the whole wait.
      const woken = new AbortController();
      wake = () => woken.abort();
      await sleep(delay, AbortSignal.any([stop.signal, woken.signal]));
      wake = undefined;
    }
    throw stop.signal.reason === TIMED_OUT
      ? new WaitTimeoutError(
          `${w.id} did not reach ${until.join(' or ')} within ${timeout} ms (last status: ${last?.status ?? 'unknown'})`,
          last,
        )
      : stop.signal.reason;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    w.tap?.listeners.delete(listener);
  }
}
