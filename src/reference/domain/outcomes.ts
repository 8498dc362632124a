/**
 * The planned-outcome rule of test mode: deterministic on the create request alone, so a merchant's CI reaches
 * every outcome without the control routes. The last three digits of `amount` (in minor units) choose it; every
 * other amount plans success. `1000`, `10050` or `1` succeed; `10901` (109.01 RUB) fails when paid.
 *
 * | amount ends in | payment outcome (`simulator`)  | payout outcome (`simulator`) |
 * |---|---|---|
 * | 901 | `failed`: the buyer pays, the bank declines | `failed` after the payout delay |
 * | 902 | `refused`: failed at once, 201 carries `failure_code` | `refused`: failed at once, 201 carries `failure_reason` |
 * | 903 | `expired`: the buyer pays, the bank never answers, the bank session ends | `pending`: stays pending until a simulator route |
 * | 904 | `processing_then_succeeded`: the buyer pays, the bank confirms 30 s later | `succeeded` (as any other amount) |
 * | other | `succeeded`: the buyer pays, the bank confirms at once | `succeeded` after the payout delay |
 */
export const PAYMENT_OUTCOMES = [
  'succeeded',
  'failed',
  'refused',
  'expired',
  'processing_then_succeeded',
] as const;
export const PAYOUT_OUTCOMES = ['succeeded', 'failed', 'refused', 'pending'] as const;
export type PaymentOutcome = (typeof PAYMENT_OUTCOMES)[number];
export type PayoutOutcome = (typeof PAYOUT_OUTCOMES)[number];

/** A synchronous refusal's code and text, as the 201 answer of creation carries them. */
export interface BankRefusal {
  code: string;
  message: string;
}

/** `failure_code` of a payment refused at creation (amount ending in 902). */
export const PAYMENT_REFUSAL: BankRefusal = {
  code: 'payment_declined',
  message: 'The bank refused the payment at creation (test amount ending in 902).',
};
/** Why the bank declined a paid payment (amount ending in 901, or the buyer's Decline). */
export const PAYMENT_DECLINE: BankRefusal = {
  code: 'bank_declined',
  message: 'The bank declined the payment.',
};
/** `failure_reason` of a payout refused at creation (amount ending in 902). */
export const PAYOUT_REFUSAL: BankRefusal = {
  code: 'payout_declined',
  message: 'The bank refused the payout at creation (test amount ending in 902).',
};
/** `fail_reason` of a payout the recipient's bank declined (amount ending in 901). */
export const PAYOUT_DECLINE = 'recipient_bank_declined';

// The endings of `amount` that plan something else than success.
const PAYMENT_TAILS: Readonly<Record<number, PaymentOutcome>> = {
  901: 'failed',
  902: 'refused',
  903: 'expired',
  904: 'processing_then_succeeded',
};
const PAYOUT_TAILS: Readonly<Record<number, PayoutOutcome>> = {
  901: 'failed',
  902: 'refused',
  903: 'pending',
};

/**
 * The planned outcome of a test payment.
 *
 * @example planPaymentOutcome(10_000) // 'succeeded'
 * @example planPaymentOutcome(10_902) // 'refused'
 */
export function planPaymentOutcome(amount: number): PaymentOutcome {
  return PAYMENT_TAILS[amount % 1000] ?? 'succeeded';
}

/**
 * The planned outcome of a test payout.
 *
 * @example planPayoutOutcome(50_000) // 'succeeded'
 * @example planPayoutOutcome(50_901) // 'failed'
 */
export function planPayoutOutcome(amount: number): PayoutOutcome {
  return PAYOUT_TAILS[amount % 1000] ?? 'succeeded';
}
