/**
 * A refusal the reference answers with the spec's error body `{ error: { code, message } }` (spec 2.9).
 * The domain throws it; the HTTP layer maps it to a Response. Anything else thrown is a bug.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429,
    readonly code: string,
    message: string,
    /** Extra response headers, e.g. `Retry-After` on 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}
