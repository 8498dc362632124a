/**
 * Field limits the spec leaves open ("not shown"); both the SDK and the reference enforce them.
 * See docs/spec-decisions.md.
 */
export const LIMITS = {
  idempotencyKeyMax: 64,
  orderIdMax: 256,
  customerIdMax: 256,
  descriptionMax: 1024,
  urlMax: 2048,
  metadataMaxKeys: 50,
  metadataKeyMax: 40,
  metadataValueMax: 500,
  fullNameMax: 256,
  reasonMax: 1024,
} as const;

export const PAYMENT_METHODS = ['sbp', 'cards', 'tpay', 'sberpay', 'recurrent', 'any'] as const;
export const PAYMENT_STATUSES = [
  'pending',
  'processing',
  'succeeded',
  'failed',
  'expired',
  'cancelled',
  'refunded',
] as const;
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const PAYOUT_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export const PAYOUT_METHODS = ['payouts_sbp'] as const;
export const MODES = ['test', 'live'] as const;

export const PHONE_RE = /^\+7\d{10}$/;
export const BANK_ID_RE = /^\d{12}$/;
export const CURRENCY_RE = /^[A-Z]{3}$/;
/** An identifier (spec section 1: "Identifiers are UUIDv4 strings"), in either case. The one UUID rule. */
export const UUID_V4_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
/**
 * Spec 5.6 says only "string, at most 64 characters". What an HTTP header carries faithfully is visible ASCII with
 * spaces or tabs inside (a leading or trailing one is stripped in transit, so the server would see another key).
 */
export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7E](?:[\x20-\x7E\t]{0,62}[\x21-\x7E])?$/;
/** What {@link IDEMPOTENCY_KEY_RE} asks, as the client and the reference word it. */
export const IDEMPOTENCY_KEY_RULE =
  'must be 1 to 64 ASCII characters, visible ones or spaces inside (it travels in an HTTP header)';

/**
 * The form of an API key (spec 5.2): `sk_test_` or `sk_live_`, 6 letters or digits, `_` and the secret. The
 * client refuses a key of another form before sending; the reference tells "malformed" (not of this form) from
 * "unknown" (of this form, never issued).
 */
export const API_KEY_RE = /^sk_(test|live)_[A-Za-z0-9]{6}_[A-Za-z0-9._~+/=-]+$/;
