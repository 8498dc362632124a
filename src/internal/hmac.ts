// The one HMAC-SHA256 (and SHA-256) of the package: the client's X-PSP-Signature, the webhooks' signatures and the
// reference's checks, keyed digests and journal digests all compute it here, so the halves cannot disagree on a byte.
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';

type NodeHmac = { update(d: string | Uint8Array): NodeHmac; digest(enc: 'hex'): string };
type NodeCrypto = {
  createHmac(alg: string, key: string | Uint8Array): NodeHmac;
  createHash(alg: string): NodeHmac;
  /** One-shot digest (Node >= 20.12, Deno, Bun): no Hash object per call. */
  hash?: ((alg: string, data: string | Uint8Array, enc: 'hex') => string) | undefined;
};

/** Which HMAC implementation computes a digest: node:crypto, or @noble/hashes (pure JS, runs everywhere). */
export type HmacBackend = 'node' | 'noble';

let nodeCrypto: NodeCrypto | undefined | null = null;

/**
 * Which HMAC implementation is in use: `node` (node:crypto) or `noble` (@noble/hashes, the portable fallback).
 *
 * @example
 * hmacBackend(); // 'node' in Node, Deno and Bun
 */
export function hmacBackend(): HmacBackend {
  if (nodeCrypto === null) {
    // node:crypto's HMAC is several times faster than pure JS. process.getBuiltinModule reaches it synchronously
    // in Node >= 20.16, Deno and Bun without a static import that would break browsers and edge bundlers.
    try {
      nodeCrypto = (
        globalThis as { process?: { getBuiltinModule?(id: string): any } | undefined }
      ).process?.getBuiltinModule?.('node:crypto');
    } catch {}
    if (typeof nodeCrypto?.createHmac !== 'function') nodeCrypto = undefined;
  }
  return nodeCrypto ? 'node' : 'noble';
}

const enc = new TextEncoder();

/**
 * HMAC-SHA256 keyed by the UTF-8 bytes of `key` over the concatenation of `parts` (strings as UTF-8), as lowercase
 * hex. Hashing the parts in sequence spares the copy of `<t>.<body>` a concatenation would make. Synchronous on
 * every runtime (WebCrypto's HMAC is async only), so a signature never turns a call into a promise.
 *
 * @param backend - defaults to {@link hmacBackend}(); `noble` forces the pure-JS path (tests compare both).
 * @example
 * hmacSha256HexParts('whs_x', ['1700000000.', body]); // v2 signature of `body`
 */
export function hmacSha256HexParts(
  key: string,
  parts: ReadonlyArray<string | Uint8Array>,
  backend: HmacBackend = 'node',
): string {
  // 'node' is the default and falls back to noble where node:crypto is missing.
  if (backend === 'node' && hmacBackend() === 'node') {
    const h = nodeCrypto!.createHmac('sha256', key);
    for (const p of parts) h.update(p);
    return h.digest('hex');
  }
  const h = hmac.create(sha256, enc.encode(key));
  for (const p of parts) h.update(typeof p === 'string' ? enc.encode(p) : p);
  return bytesToHex(h.digest());
}

/**
 * HMAC-SHA256 of `data` keyed by the UTF-8 bytes of `key`, as lowercase hex.
 *
 * @example
 * hmacSha256Hex('thm_secret', ''); // X-PSP-Signature of an empty GET body, without the `sha256=` prefix
 */
export function hmacSha256Hex(key: string, data: string | Uint8Array, backend: HmacBackend = 'node'): string {
  return hmacSha256HexParts(key, [data], backend);
}

/**
 * SHA-256 of `data` (a string as UTF-8) as lowercase hex, synchronous on every runtime like the HMAC.
 *
 * @example
 * sha256Hex(''); // 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
 */
export function sha256Hex(data: string | Uint8Array): string {
  if (hmacBackend() === 'node') {
    // The one-shot form costs a fifth of a Hash object's (the journal digests every public body).
    const c = nodeCrypto!;
    return c.hash ? c.hash('sha256', data, 'hex') : c.createHash('sha256').update(data).digest('hex');
  }
  return bytesToHex(sha256(typeof data === 'string' ? enc.encode(data) : data));
}

/**
 * Compares two strings in time that depends only on their lengths, never on where they differ.
 *
 * @example
 * timingSafeEqualString(expectedHex, givenHex);
 */
export function timingSafeEqualString(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
