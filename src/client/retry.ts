// The calls' retry policy, in one place: after each failed attempt (one ky call), the transport asks
// `retryDecision` whether and when to try again, and waits with the SDK's one sleep (wait.ts).
import { HTTPError, TimeoutError } from 'ky';
import { PspError, parseRetryAfter } from './errors.js';
import { backoffDelay, worthRetrying } from './wait.js';

/**
 * How an attempt ended: an HTTP error answer (`status`, with its readable `Retry-After` in ms), a `timeout` of
 * the attempt, a `network` failure (no answer, or a middleware that threw), or `final`: the SDK's own refusal or
 * the caller's abort, never retried.
 */
export type AttemptOutcome =
  | { readonly status: number; readonly retryAfter?: number | undefined }
  | { readonly failure: 'timeout' | 'network' | 'final' };

/** What {@link retryDecision} weighs after a failed attempt. */
export interface RetryInput {
  /** Attempts made so far, the failed one included (1 after the first). */
  readonly attempt: number;
  readonly maxRetries: number;
  /** Whether repeating the call cannot duplicate an effect (GETs, keyed POSTs, cancel). */
  readonly safe: boolean;
  readonly outcome: AttemptOutcome;
  /** The call's per-attempt timeout, in ms. */
  readonly timeout: number;
  /** Ceiling of any wait, the server's included (the client's `maxRetryDelay`). */
  readonly maxRetryDelay: number;
  /** Source of jitter in [0, 1); default `Math.random`. */
  readonly random?: (() => number) | undefined;
}

export type RetryDecision = { readonly retry: false } | { readonly retry: true; readonly delayMs: number };

const STOP: RetryDecision = { retry: false };

/**
 * Whether to try a failed call again, and after how long. Retried: timeouts, network failures and the answers
 * `worthRetrying` (wait.ts: 408, 429, 500, 502 and above; 501 and 413 are final), on calls safe to repeat, up to
 * `maxRetries` retries.
 * A 429 whose `Retry-After` outlasts the call's timeout is answered at once (the error carries `retryAfter`). The
 * wait is the answer's readable `Retry-After`, else full jitter over 0.3 s x 2^(attempt-1), capped by
 * `maxRetryDelay`.
 *
 * @example
 * retryDecision({ attempt: 1, maxRetries: 2, safe: true, outcome: { status: 503 }, timeout: 30_000, maxRetryDelay: 8_000 });
 * // { retry: true, delayMs: <between 0 and 300> }
 */
export function retryDecision(input: RetryInput): RetryDecision {
  const { outcome: o } = input;
  const after = 'status' in o ? o.retryAfter : undefined;
  const final =
    'status' in o
      ? !worthRetrying(o.status) || (o.status === 429 && after !== undefined && after > input.timeout)
      : o.failure === 'final';
  if (final || !input.safe || input.attempt > input.maxRetries) return STOP;
  const { maxRetryDelay: maxMs } = input;
  return {
    retry: true,
    delayMs:
      after === undefined
        ? backoffDelay(input.attempt, { firstMs: 300, maxMs, jitter: 'full' }, input.random)
        : Math.min(after, maxMs),
  };
}

/**
 * The outcome of an attempt from what ky threw: its `HTTPError` (with the `Retry-After` of a 429 or 503, when
 * readable), its `TimeoutError`, one of our own errors (final), or anything else (a network failure).
 *
 * @example
 * outcomeOf(new TimeoutError(request)); // { failure: 'timeout' }
 */
export function outcomeOf(error: unknown): AttemptOutcome {
  if (error instanceof PspError) return { failure: 'final' };
  if (error instanceof TimeoutError) return { failure: 'timeout' };
  if (!(error instanceof HTTPError)) return { failure: 'network' };
  const { status, headers } = error.response;
  return status === 429 || status === 503
    ? { status, retryAfter: parseRetryAfter(headers.get('retry-after')) }
    : { status };
}
