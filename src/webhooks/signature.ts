/*
 * X-PSP-Signature formats. The reference's sender (src/reference/webhooks) signs exactly this way, through
 * computeSignatureHeader in ./sign.ts.
 *
 *   v2 (default)  `t=<unix seconds>,v1=<hex>,v2=<hex>`, and `X-PSP-Timestamp: <the same t>`
 *                 v2 = HMAC-SHA256(key, `<t>.<raw body>`)
 *                 v1 = the same HMAC-SHA256(key, `<t>.<raw body>`): spec 6.1 gives the v2 format one computation.
 *                      Bound to `t`, so no part of a captured v2 header passes as a legacy `sha256=` signature of
 *                      the body (docs/spec-decisions.md). Only `v2=` proves a v2 header: a header with `t=` but no
 *                      `v2=` is refused (`missing_v2_signature`).
 *   v1 (legacy)   `sha256=<hex>`, HMAC-SHA256(key, `<raw body>`), no replay protection.
 *
 *   key = the `whs_...` secret string exactly as shown, prefix included, as UTF-8. Hex is lowercase, 64 chars.
 *   Several `v2=` (or `sha256=`) entries may appear; any one matching any accepted secret verifies.
 */
import { fail } from './errors.js';

export type ParsedSignature =
  | { version: 'v1'; sigs: string[] }
  | { version: 'v2'; t: string; sigs: string[] };

const HEX64 = /^[0-9a-fA-F]{64}$/;

/**
 * Parses an `X-PSP-Signature` value; throws `malformed_signature` or `missing_v2_signature`.
 *
 * @example
 * parseSignatureHeader('t=1763700000,v1=ab..,v2=cd..'); // { version: 'v2', t: '1763700000', sigs: ['cd..'] }
 */
export function parseSignatureHeader(value: string): ParsedSignature {
  // The service's exact format takes one regex instead of the general loop below.
  const fast = /^t=(\d{1,12}),v1=[0-9a-f]{64},v2=([0-9a-f]{64})$/.exec(value);
  if (fast) return { version: 'v2', t: fast[1]!, sigs: [fast[2]!] };
  // Bounds keep a hostile header from costing more than a normal one: the length before it is split.
  if (value.length > 4096) malformed();
  const parts = value.split(',');
  if (parts.length > 32) malformed();
  let t: string | undefined;
  const sigs: string[] = [];
  const legacy = value.trimStart().startsWith('sha256=');
  for (const raw of parts) {
    const part = raw.trim();
    const eq = part.indexOf('=');
    if (eq < 1) malformed();
    const key = part.slice(0, eq);
    const val = part.slice(eq + 1);
    if (legacy) {
      if (key !== 'sha256') malformed();
      sigs.push(hex(val));
    } else if (key === 't') {
      if (t !== undefined || !/^\d{1,12}$/.test(val)) malformed();
      t = val;
    } else if (key === 'v2') sigs.push(hex(val));
    // v1= and keys of future versions are ignored: only v2= proves a v2 header.
  }
  if (legacy) return { version: 'v1', sigs };
  if (t === undefined) malformed();
  if (!sigs.length)
    fail('missing_v2_signature', 'X-PSP-Signature has t= but no v2= (its v1= never counts as v2).');
  return { version: 'v2', t, sigs };
}

function hex(v: string): string {
  if (!HEX64.test(v)) malformed();
  return v.toLowerCase();
}

// One message for every shape problem: echoing the offending part would put attacker input into logs.
function malformed(): never {
  return fail('malformed_signature', 'X-PSP-Signature is neither t=<unix>,v2=<hex> nor sha256=<hex>.');
}
