/**
 * Why a webhook was refused. Stable strings: branch on them, log them, count them.
 *
 * - `missing_secret`, `invalid_secret`, `invalid_options`: your configuration (fix the code, not the request).
 * - `body_not_raw`: you passed a parsed object; pass the raw bytes exactly as received.
 * - `missing_signature`, `malformed_signature`, `missing_v2_signature`: the `X-PSP-Signature` header is absent,
 *   unreadable, or a v2 header without a `v2=` entry (never downgraded to its `v1=` entry).
 * - `v1_not_allowed`: a legacy `sha256=` signature while `requireV2` is set.
 * - `no_matching_signature`: no signature matches any secret: wrong secret, tampered body, or a forgery.
 * - `timestamp_mismatch`: `X-PSP-Timestamp` differs from the signed `t=`.
 * - `timestamp_outside_tolerance`: authentic but older or newer than `tolerance`: a replay or a wrong clock.
 * - `invalid_json`, `invalid_payload`: authentic, but not a JSON webhook envelope.
 */
export type WebhookVerificationReason =
  | 'missing_secret'
  | 'invalid_secret'
  | 'invalid_options'
  | 'body_not_raw'
  | 'missing_signature'
  | 'malformed_signature'
  | 'missing_v2_signature'
  | 'v1_not_allowed'
  | 'no_matching_signature'
  | 'timestamp_mismatch'
  | 'timestamp_outside_tolerance'
  | 'invalid_json'
  | 'invalid_payload';

/**
 * The one error `verifyWebhook` throws. `reason` is machine-readable; `message` says what to fix. Neither the
 * secret nor the body ever appears in the message, `JSON.stringify(error)` or `util.inspect(error)`.
 *
 * @example
 * try {
 *   verifyWebhook(body, headers, secret);
 * } catch (e) {
 *   if (e instanceof WebhookVerificationError) console.warn('rejected webhook', e.reason);
 * }
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  /** Machine-readable cause, see {@link WebhookVerificationReason}. */
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }

  toJSON(): { name: string; reason: WebhookVerificationReason; message: string } {
    return { name: this.name, reason: this.reason, message: this.message };
  }
}

/**
 * Throws a {@link WebhookVerificationError}; an expression form keeps call sites short.
 *
 * @example
 * if (!value) fail('missing_signature', 'No X-PSP-Signature header.');
 */
export function fail(reason: WebhookVerificationReason, message: string): never {
  throw new WebhookVerificationError(reason, message);
}
