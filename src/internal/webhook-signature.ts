// The headers a webhook carries (spec 6.1), built once for both halves: psp-sdk/webhooks' signWebhook and
// verifyWebhook's secret check, and the reference's sender (src/reference/webhooks/dispatcher.ts), which must not
// import a public entry's files. The signature formats are described in src/webhooks/signature.ts.
import { sha256Signature } from './wire.js';
import { hmacSha256HexParts } from './hmac.js';
import type { SignatureVersion } from '../schemas/names.js';

/** Input of {@link computeSignatureHeader}. */
export interface SignatureHeaderInput {
  /** The endpoint's `whs_...` secret, prefix included. */
  secret: string;
  /** The exact body that will be sent. */
  body: string | Uint8Array;
  /** Default `v2`. */
  version?: SignatureVersion | undefined;
  /** Unix seconds (an integer) that `t=` carries; required for v2, ignored for v1. */
  timestamp?: number | undefined;
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
  if (version === 'v1') return sha256Signature(hmacSha256HexParts(secret, [body]));
  if (version !== 'v2' || !isUnixSeconds(timestamp)) throw new TypeError(TIMESTAMP_RULE);
  const signed = hmacSha256HexParts(secret, [`${timestamp}.`, body]);
  return `t=${timestamp},v1=${signed},v2=${signed}`;
}

const TIMESTAMP_RULE = 'timestamp must be integer Unix seconds (not ms); version v1 or v2.';

// The 1e11 bound (year 5138) catches epoch milliseconds passed by mistake.
const isUnixSeconds = (ts: unknown): ts is number =>
  Number.isSafeInteger(ts) && (ts as number) >= 0 && (ts as number) < 1e11;

/** Input of {@link webhookHeaders}. */
export interface WebhookHeadersInput {
  /** The endpoint's `whs_...` secret, prefix included. */
  secret: string;
  /** The exact body that will be sent. */
  body: string | Uint8Array;
  version: SignatureVersion;
  /** Unix seconds (an integer) of this attempt: `t=` of a v2 signature, and `X-PSP-Timestamp` in both versions. */
  timestamp: number;
  /** The event's `evt_` id, sent as `X-PSP-Event-Id`; left out when undefined (a test payload without an id). */
  eventId?: string | undefined;
}

/**
 * Every header of one webhook request (spec 6.1), lowercase names: what the reference's sender attaches to each
 * attempt and what `signWebhook` hands a merchant's test, so the two cannot differ. `X-PSP-Timestamp` is sent for
 * v1 too (docs/spec-decisions.md, "Webhook delivery"): spec 6.1's table of request headers lists it without a
 * condition. Pure, like {@link computeSignatureHeader}.
 *
 * @throws {TypeError} on an unusable secret, version or timestamp (the message never contains the secret).
 * @example
 * const headers = webhookHeaders({ secret, body, version: 'v2', timestamp: 1_763_000_000, eventId: 'evt_1' });
 */
export function webhookHeaders(input: WebhookHeadersInput): Record<string, string> {
  const { timestamp, eventId } = input;
  const signature = computeSignatureHeader(input);
  // v2 checked it already; v1 signs no time, but still sends it.
  if (!isUnixSeconds(timestamp)) throw new TypeError(TIMESTAMP_RULE);
  return {
    'content-type': 'application/json',
    'user-agent': 'psp-webhook/1.0',
    ...(eventId === undefined ? {} : { 'x-psp-event-id': eventId }),
    'x-psp-signature': signature,
    'x-psp-timestamp': String(timestamp),
  };
}

/**
 * Where a webhook secret comes from, said with a missing or mistyped one: where a config mistake shows up first, the
 * source is half the fix.
 */
export const SECRET_SOURCE =
  "pass the endpoint's whs_... secret, shown when the endpoint was made or rotated (keep it in an environment variable such as PSP_WEBHOOK_SECRET)";

/**
 * Why a webhook secret is unusable, or undefined when it is fine. The text names the problem, never the secret.
 *
 * @example
 * secretProblem('thm_x'); // "is a thm_ key, not a whs_ secret"
 */
export function secretProblem(secret: unknown): string | undefined {
  if (typeof secret !== 'string') return `is not a string: ${SECRET_SOURCE}`;
  if (secret.trim() !== secret) return 'has surrounding whitespace';
  if (/^whs_./.test(secret)) return undefined;
  const other = /^(thm|sk)_/.exec(secret)?.[0];
  return other ? `is a ${other} key, not a whs_ secret` : 'must be the whole whs_... string';
}
