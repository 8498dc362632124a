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

/** Per-call state, shared by the attempts of one call. */
export interface CallState {
  attempts: number;
  body: string;
  /** Whether the call has a body (sent as `application/json`). */
  json: boolean;
  timeout: number;
  signal: AbortSignal | undefined;
  idempotencyKey: string | undefined;
  started: number;
}

/** Stamps the call's attempt count and Idempotency-Key on an error. @example markCall(new PspAbortError('x'), state) */
export function markCall<E extends PspError & { attempts: number; idempotencyKey?: string | undefined }>(
  err: E,
  state: CallState,
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
 * catch (err) { throw await toPspError(err, state, 'payments.get'); }
 */
export async function toPspError(err: unknown, state: CallState, what: string): Promise<PspError> {
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
  const detail = err instanceof Error ? `: ${redactSecrets(err.message)}` : '';
  return markCall(new PspConnectionError(`${what} got no answer${detail}`, { cause: err }), state);
}
