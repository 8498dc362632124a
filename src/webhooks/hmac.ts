import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

type NodeCrypto = {
  createHmac(
    alg: string,
    key: string | Uint8Array,
  ): { update(d: string | Uint8Array): { digest(enc: 'hex'): string } };
};

// node:crypto's HMAC is several times faster than pure JS. process.getBuiltinModule reaches it synchronously in
// Node >= 20.16, Deno and Bun without a static import that would break browsers and edge bundlers.
function loadNodeCrypto(): NodeCrypto | undefined {
  try {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const mod = proc?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
    return typeof mod?.createHmac === 'function' ? mod : undefined;
  } catch {
    return undefined;
  }
}

let nodeCrypto: NodeCrypto | undefined | null = null;

/** Which HMAC implementation is in use: `node` (node:crypto) or `noble` (@noble/hashes, the portable fallback). */
export function hmacBackend(): 'node' | 'noble' {
  if (nodeCrypto === null) nodeCrypto = loadNodeCrypto();
  return nodeCrypto ? 'node' : 'noble';
}

/** HMAC-SHA256 of `data` keyed by the UTF-8 bytes of `key`, as lowercase hex. */
export function hmacSha256Hex(key: string, data: string | Uint8Array, backend = hmacBackend()): string {
  if (backend === 'node' && nodeCrypto)
    return nodeCrypto.createHmac('sha256', key).update(data).digest('hex');
  const bytes = typeof data === 'string' ? utf8ToBytes(data) : data;
  return bytesToHex(hmac(sha256, utf8ToBytes(key), bytes));
}

/** Compares two strings in time that depends only on their lengths, never on where they differ. */
export function timingSafeEqualString(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
