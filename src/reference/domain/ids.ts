/** A UUIDv4, the id form of every object on the wire (spec section 1). */
export function newId(): string {
  return crypto.randomUUID();
}

const ALPHANUM = 'abcdefghijklmnopqrstuvwxyz0123456789';

/**
 * `length` random lowercase letters and digits from the platform CSPRNG. Rejection sampling keeps the
 * distribution uniform (256 is not a multiple of 36).
 *
 * @example randomToken(6) // 'k3x9qa'
 */
export function randomToken(length: number): string {
  let out = '';
  const buf = new Uint8Array(length * 2);
  while (out.length < length) {
    crypto.getRandomValues(buf);
    for (const b of buf) {
      if (b < 252 && out.length < length) out += ALPHANUM[b % 36];
    }
  }
  return out;
}

/**
 * Wire form of a service-clock time: RFC 3339 in UTC (spec section 1).
 *
 * @example iso(0) // '1970-01-01T00:00:00.000Z'
 */
export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/**
 * Same as {@link iso} but keeps "not yet" as `null`.
 *
 * @example isoOrNull(null) // null
 */
export function isoOrNull(ms: number | null | undefined): string | null {
  return ms == null ? null : iso(ms);
}
