// The one place the API's credentials go on the wire (spec 5.1 and 5.4): the Authorization header and the
// `sha256=` signature of exact body bytes. The client's send step, the contract kit and its event stream, shadow mode,
// the CLI's control calls and the webhook sender's v1 signature all write them here, so a rule fixed once (the
// header's form, what the signature covers) reaches every request the package makes.
import { hmacSha256Hex } from './hmac.js';

/**
 * The `Authorization` header's value for an API key or an admin token.
 *
 * @example authorization('sk_test_...') // 'Bearer sk_test_...'
 */
export const authorization = (token: string): string => `Bearer ${token}`;

/**
 * A `sha256=` signature from the hex HMAC-SHA256 of what it covers: the form of `X-PSP-Signature` on a request
 * (over its body) and of a v1 webhook signature (over the delivered body).
 *
 * @example sha256Signature('ab12...') // 'sha256=ab12...'
 */
export const sha256Signature = (hexDigest: string): string => `sha256=${hexDigest}`;

/**
 * `X-PSP-Signature` of a request (spec 5.4): the HMAC-SHA256 of the exact body bytes (the empty string when it has
 * none, a GET's) keyed by the terminal's `thm_` secret.
 *
 * @example requestSignature('thm_...', '{"amount":100}') // 'sha256=...'
 */
export const requestSignature = (secret: string, body: string | Uint8Array): string =>
  sha256Signature(hmacSha256Hex(secret, body));

/** What {@link requestHeaders} is asked for. */
export interface RequestHeadersInput {
  /** The API key or admin token; null or undefined sends no `Authorization`. */
  token?: string | null | undefined;
  /** The exact body text or bytes sent; undefined for none. */
  body?: string | Uint8Array | undefined;
  /** The `thm_` secret to sign the body with; null or undefined sends no signature. */
  signWith?: string | null | undefined;
  /** `Accept`; default `application/json`. */
  accept?: string | undefined;
}

/**
 * The headers of a raw request to the API: `Accept`, `Authorization`, `Content-Type` for a (JSON) body and
 * `X-PSP-Signature` over its exact bytes.
 *
 * @example requestHeaders({ token: 'sk_test_...', body: '{}', signWith: 'thm_...' })
 */
export function requestHeaders(input: RequestHeadersInput): Record<string, string> {
  const { token, body, signWith, accept = 'application/json' } = input;
  const headers: Record<string, string> = { accept };
  if (token !== null && token !== undefined) headers.authorization = authorization(token);
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (signWith) headers['x-psp-signature'] = requestSignature(signWith, body ?? '');
  return headers;
}
