import { hmacSha256HexParts } from '../internal/hmac.js';
import type { SignatureVersion } from '../schemas/names.js';
import { secretProblem } from './signature.js';

/** Input of {@link computeSignatureHeader}. */
export interface SignatureHeaderInput {
  /** The endpoint's `whs_...` secret, prefix included. */
  secret: string;
  /** The exact body that will be sent. */
  body: string | Uint8Array;
  /** Default `v2`. */
  version?: SignatureVersion;
  /** Unix seconds (an integer) that `t=` carries; required for v2, ignored for v1. */
  timestamp?: number;
}

/**
 * The `X-PSP-Signature` value for a body: pure (no clock, no randomness), so the service's sender and tests
 * produce identical headers. v2: `t=<ts>,v1=<hex>,v2=<hex>`, both HMAC over `"<ts>.<body>"` (spec 6.1 gives the v2
 * format one computation; a body-only `v1=` would be a legacy `sha256=` signature that a captured v2 header hands
 * to anyone, replayable forever); v1: `sha256=<HMAC(body)>`.
 *
 * @throws {TypeError} on an unusable secret or timestamp (the message never contains the secret).
 * @example
 * const signature = computeSignatureHeader({ secret, body, timestamp: Math.floor(Date.now() / 1000) });
 */
export function computeSignatureHeader(input: SignatureHeaderInput): string {
  const { secret, body, version = 'v2', timestamp } = input;
  const problem = secretProblem(secret);
  if (problem) throw new TypeError(`The webhook secret ${problem}.`);
  if (version === 'v1') return `sha256=${hmacSha256HexParts(secret, [body])}`;
  // The 1e11 bound (year 5138) catches epoch milliseconds passed by mistake.
  const ts = timestamp as number;
  if (version !== 'v2' || !Number.isSafeInteger(ts) || ts < 0 || ts >= 1e11)
    throw new TypeError('timestamp must be integer Unix seconds (not ms); version v1 or v2.');
  const signed = hmacSha256HexParts(secret, [`${timestamp}.`, body]);
  return `t=${timestamp},v1=${signed},v2=${signed}`;
}

/** Options of {@link signWebhook}. */
export interface SignWebhookOptions {
  /** Time to sign: a `Date`, or Unix seconds (what `t=` carries). Default: now. */
  timestamp?: Date | number;
  /** Default `v2`. */
  version?: SignatureVersion;
}

/** A webhook request ready to send: the exact body and the headers the service would attach (lowercase names). */
export interface SignedWebhook {
  body: string;
  headers: Record<string, string>;
}

/**
 * Signs a webhook the way the Payment Service does, for merchants' tests of their receivers. An object payload is
 * serialised with `JSON.stringify` and its `id` becomes
 * `X-PSP-Event-Id`; a string is sent as is.
 *
 * @example
 * const { body, headers } = signWebhook(
 *   { id: 'evt_1', event: 'payment.succeeded', created_at: new Date().toISOString(), data: payment },
 *   'whs_test_secret',
 * );
 * const res = await app.request('/webhooks', { method: 'POST', body, headers });
 */
export function signWebhook(
  payload: string | object,
  secret: string,
  options: SignWebhookOptions = {},
): SignedWebhook {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  if (typeof body !== 'string') throw new TypeError('payload must be a string or JSON-serialisable.');
  const { version = 'v2', timestamp: at = new Date() } = options;
  const timestamp = at instanceof Date ? Math.floor(at.getTime() / 1000) : at;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'psp-webhook/1.0',
    'x-psp-signature': computeSignatureHeader({ secret, body, version, timestamp }),
  };
  const id = (payload as { id?: unknown }).id;
  if (typeof id === 'string') headers['x-psp-event-id'] = id;
  if (version === 'v2') headers['x-psp-timestamp'] = String(timestamp);
  return { body, headers };
}
