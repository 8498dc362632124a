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
/** Visible ASCII only: the key travels in an HTTP header. */
export const IDEMPOTENCY_KEY_RE = /^[\x21-\x7E]{1,64}$/;
