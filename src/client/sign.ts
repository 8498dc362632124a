import { hmacSha256Hex } from '../internal/hmac.js';

/**
 * HMAC-SHA256 hex of a body (its text, or its bytes when a middleware replaced it). Synchronous on every runtime.
 */
export type Signer = (body: string | Uint8Array) => string;

/**
 * A signer for `X-PSP-Signature` keyed by the UTF-8 bytes of `secret` (the `thm_...` string as given): the
 * package's one HMAC (node:crypto where present, @noble/hashes elsewhere), the same the webhooks and the reference
 * compute.
 *
 * @example
 * const sign = createSigner('thm_...');
 * const hex = sign('{"amount":100}');
 */
export function createSigner(secret: string): Signer {
  return (body) => hmacSha256Hex(secret, body);
}
