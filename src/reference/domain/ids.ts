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

const DAY_MS = 86_400_000;
// The `YYYY-MM-DDT` of the last day formatted: reads and writes mostly fall on one day, and Date#toISOString
// (a Date and a runtime call each time) was a few per cent of a GET's CPU with four timestamps per payment.
let lastDay = Number.NaN;
let lastDayPrefix = '';

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);
const pad3 = (n: number) => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`);

/**
 * Wire form of a service-clock time: RFC 3339 in UTC (spec section 1), exactly `new Date(ms).toISOString()`.
 * Whole milliseconds from 1970 to 9999 are formatted here; anything else (fractions, negative, far future,
 * NaN) goes to Date, which also throws the same RangeError for an invalid time.
 *
 * @example iso(0) // '1970-01-01T00:00:00.000Z'
 */
export function iso(ms: number): string {
  if (!(ms >= 0 && ms < 253_402_300_800_000) || !Number.isInteger(ms)) return new Date(ms).toISOString();
  const day = Math.floor(ms / DAY_MS);
  if (day !== lastDay) {
    lastDayPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    lastDay = day;
  }
  let t = ms - day * DAY_MS;
  const milli = t % 1000;
  t = (t - milli) / 1000;
  const sec = t % 60;
  t = (t - sec) / 60;
  const min = t % 60;
  return `${lastDayPrefix}${pad2((t - min) / 60)}:${pad2(min)}:${pad2(sec)}.${pad3(milli)}Z`;
}

/**
 * Same as {@link iso} but keeps "not yet" as `null`.
 *
 * @example isoOrNull(null) // null
 */
export function isoOrNull(ms: number | null | undefined): string | null {
  return ms == null ? null : iso(ms);
}
