/**
 * Defaults of the rules the spec leaves open (section 8: "not shown"). Each is explained in
 * docs/spec-decisions.md; the cabinet can change the rate limit per merchant.
 *
 * @example
 * await ref.control.advanceClock(DEFAULTS.linkLifetimeMs / 1000); // every pending payment link has expired
 */
export const DEFAULTS = {
  /** Requests per merchant per window (fixed window on the service clock). */
  rateLimit: { limit: 1000, window_seconds: 1 },
  /** Lifetime of a payment link: a `pending` payment expires this long after creation. */
  linkLifetimeMs: 30 * 60_000,
  /** Lifetime of a bank session: a `processing` payment with no final answer expires this long after it began. */
  bankSessionMs: 10 * 60_000,
  /** How long a slow bank takes to confirm (planned outcome `processing_then_succeeded`). */
  slowConfirmMs: 30_000,
  /** How long a payout takes to reach its planned outcome. */
  payoutDelayMs: 5_000,
  /** How long an Idempotency-Key is remembered. */
  idempotencyTtlMs: 24 * 60 * 60_000,
  /**
   * Most refunds one payment can have: the last of them must refund the whole remaining balance, any other is 409
   * `refund_limit_reached`. Every `payment.refunded` webhook carries the whole payment with all its refunds, so
   * what one payment's refunds cost grows with their square; at 100 a payment's JSON stays under 30 KB (160 KB with
   * the longest reasons and metadata).
   */
  maxRefundsPerPayment: 100,
  /**
   * Most one merchant's keys can make the reference keep: each payment, refund and payout counts
   * `storedObjectBytes` plus the UTF-8 bytes of its request's JSON, and a creation past this is 409
   * `storage_limit_reached` (the reference keeps everything in memory and evicts nothing, so without a bound one
   * key could exhaust it). 128 MiB holds more than 100,000 small payments.
   */
  maxStoredBytesPerMerchant: 128 * 1024 * 1024,
  /** What a stored object counts beyond its request's JSON: its record, ids, indexes and deadline (measured about 1.1 KB). */
  storedObjectBytes: 1024,
  /** Largest request body accepted. */
  maxBodyBytes: 1024 * 1024,
} as const;

/** SBP moves roubles only. */
export const PAYOUT_CURRENCIES = ['RUB'] as const;
