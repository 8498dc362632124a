import { CODE, ERROR_CODES, type ErrorCode, type StatusOf } from '../../schemas/errors.js';

/**
 * A refusal the reference answers with the spec's error body `{ error: { code, message } }` (spec 2.9), at the
 * status the code has in the one table of codes (src/schemas/errors.ts): the type holds `status` to the code's
 * status, so a status the table does not give the code fails tsc. Thrown through {@link refuse}; the domain throws
 * it, the HTTP layer maps it to a Response. Anything else thrown is a bug.
 *
 * @example
 * throw new DomainError(409, CODE.not_pending, 'Only a pending payment can be cancelled.');
 */
export class DomainError<C extends ErrorCode = ErrorCode> extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly status: StatusOf<C>,
    readonly code: C,
    message: string,
    /** Extra response headers, e.g. `Retry-After` on 429. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * The refusal of `code`, at its status from the table: how the reference refuses (`throw refuse(...)`).
 *
 * @example
 * throw refuse(CODE.not_pending, 'Only a pending payment can be cancelled.');
 */
export function refuse<C extends ErrorCode>(
  code: C,
  message: string,
  headers?: Record<string, string>,
): DomainError<C> {
  return new DomainError(ERROR_CODES[code].status as StatusOf<C>, code, message, headers);
}

/** `map`'s entry for `id`, else a 404 not found naming the kind of object (`No payment with this id.`). */
export function found<T>(map: ReadonlyMap<string, T>, id: string, noun: string): T {
  const value = map.get(id);
  if (value === undefined) throw refuse(CODE.not_found, `No ${noun} with this id.`);
  return value;
}
