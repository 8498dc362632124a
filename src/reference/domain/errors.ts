/**
 * A status the spec lists for a refusal (sections 4, 5 and 7): a refusal takes one of these and says what is
 * specific in its code or message (a body that is not JSON is 400 `bad_request`), so a merchant never meets a
 * status the spec does not name. The table per operation is in docs/spec-decisions.md. The one exception is 503 `service_unavailable`: the
 * service is too busy reading other request bodies to read this one now (retry after `Retry-After`).
 */
export type RefusalStatus = 400 | 401 | 403 | 404 | 409 | 422 | 429 | 503;

/**
 * A refusal the reference answers with the spec's error body `{ error: { code, message } }` (spec 2.9).
 * The domain throws it; the HTTP layer maps it to a Response. Anything else thrown is a bug.
 *
 * @example
 * throw new DomainError(409, 'not_pending', 'Only a pending payment can be cancelled.');
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly status: RefusalStatus,
    readonly code: string,
    message: string,
    /** Extra response headers, e.g. `Retry-After` on 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** `map`'s entry for `id`, else a 404 `not_found` naming the kind of object (`No payment with this id.`). */
export function found<T>(map: ReadonlyMap<string, T>, id: string, noun: string): T {
  const value = map.get(id);
  if (value === undefined) throw new DomainError(404, 'not_found', `No ${noun} with this id.`);
  return value;
}
