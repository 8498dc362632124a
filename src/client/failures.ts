import { HTTPError, TimeoutError } from 'ky';
import {
  apiErrorOf,
  BODY_TIMEOUT,
  PspAbortError,
  PspConnectionError,
  PspError,
  PspTimeoutError,
} from './errors.js';
import { redactSecrets } from '../internal/redact.js';

/** What an error tells of the call that failed: its attempts so far, timeout, signal and Idempotency-Key. */
export interface FailedCall {
  readonly attempts: number;
  readonly timeout: number;
  readonly signal: AbortSignal | undefined;
  readonly idempotencyKey: string | undefined;
}

/** Stamps the call's attempt count and Idempotency-Key on an error. @example markCall(new PspAbortError('x'), call) */
export function markCall<E extends PspError & { attempts: number; idempotencyKey?: string | undefined }>(
  err: E,
  state: FailedCall,
): E {
  err.attempts = Math.max(1, state.attempts);
  if (state.idempotencyKey !== undefined) err.idempotencyKey = state.idempotencyKey;
  return err;
}

/**
 * Turns whatever a call threw into a {@link PspError}: the caller's abort, an HTTP error answer, a timeout (of
 * an attempt or of its body) or a connection failure, in that order of precedence.
 *
 * @example
 * catch (err) { throw await toPspError(err, { attempts, timeout, signal, idempotencyKey }, 'payments.get'); }
 */
export async function toPspError(
  err: unknown,
  state: FailedCall,
  what: string,
  origin?: string,
): Promise<PspError> {
  if (err instanceof PspError) return err;
  if (state.signal?.aborted) return markCall(new PspAbortError(`${what} was aborted by the caller`), state);
  if (err instanceof HTTPError) return apiErrorOf(err.response, state);
  if (err instanceof TimeoutError || err === BODY_TIMEOUT) {
    // No cause: ky's error holds the Request, and with it the Authorization header.
    const attempt = Math.max(1, state.attempts);
    return markCall(
      new PspTimeoutError(`${what} timed out after ${state.timeout} ms (attempt ${attempt})`),
      state,
    );
  }
  // fetch says only "fetch failed"; what went wrong is at the end of its cause chain (undici:
  // `connect ECONNREFUSED 127.0.0.1:4999`, `getaddrinfo ENOTFOUND host`): the message names that, and where.
  const reason = rootReason(err);
  const from = origin ? ` from ${origin}` : '';
  return markCall(
    new PspConnectionError(`${what} got no answer${from}${reason ? `: ${redactSecrets(reason)}` : ''}`, {
      cause: err,
    }),
    state,
  );
}

/** The message of the deepest error in a cause chain (an AggregateError's: its errors'), or undefined. */
function rootReason(err: unknown): string | undefined {
  let reason: string | undefined;
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const own =
      e.message ||
      (e instanceof AggregateError
        ? e.errors
            .map((x: unknown) => (x instanceof Error ? x.message : ''))
            .filter(Boolean)
            .join('; ')
        : '') ||
      (e as { code?: unknown }).code;
    if (typeof own === 'string' && own) reason = own;
  }
  return reason?.slice(0, 300);
}
