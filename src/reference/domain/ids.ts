import { hmacSha256Hex } from '../../internal/hmac.js';

/** A UUIDv4, the id form of every object on the wire (spec section 1). */
export function newId(): string {
  return crypto.randomUUID();
}

/**
 * An id of the UUIDv4 form made from `seed` (a fixed credential) and `label`: the same seed gives the same id at
 * every start, so a config that names the startup shop keeps working after a restart. Keyed by the seed, so the id
 * tells nothing of it.
 *
 * @example fixedId(apiKey, 'shop') // the same '…-4…-…' every time for this key
 */
export function fixedId(seed: string, label: string): string {
  const h = hmacSha256Hex(seed, `psp-reference fixed id: ${label}`);
  const variant = ((Number.parseInt(h[16]!, 16) & 3) | 8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
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
