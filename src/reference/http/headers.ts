import { DomainError } from '../domain/errors.js';

/** What a header is read from. */
export type HeaderSource = Request;

/**
 * A request header (repeats joined with `", "`, `null` when absent).
 *
 * @param name Lower-case header name.
 * @example header(request, 'authorization') // 'Bearer sk_test_...' or null
 */
export function header(request: HeaderSource, name: string): string | null {
  return request.headers.get(name);
}

/**
 * Refuses an `Expect` expectation other than `100-continue` (which node's server answers itself) with a 400
 * `bad_request` and the spec's error body. RFC 9110 lets a server refuse it with 417, a status the spec lists for no
 * operation; so the refusal comes in the spec's terms, after authentication like any other request error.
 */
export function checkExpect(request: HeaderSource): void {
  const expect = header(request, 'expect');
  if (expect === null || expect.trim().toLowerCase() === '100-continue') return;
  throw new DomainError(400, 'bad_request', 'Expect: only "100-continue" is supported.');
}
