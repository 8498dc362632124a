import { hmacSha256Hex } from '../../internal/hmac.js';
import {
  type PaymentOutcome,
  type PayoutOutcome,
  planPaymentOutcome,
  planPayoutOutcome,
  type BankRefusal,
} from './outcomes.js';

/** What the bank answers when a live payment or payout is registered with it. */
export interface BankAnswer<O> {
  /** Acquiring bank name (`bank` of the creation answer). */
  bank: string;
  /** The operation id at the bank (`bank_ref`). */
  bankRef: string;
  /** How the operation will end; `refused` outcomes end it at once. */
  outcome: O;
  refusal?: BankRefusal | undefined;
}

/**
 * The bank a live key talks to. Synchronous by design: the domain registers an operation and commits it in one
 * step, so no request can interleave between the bank's answer and the store.
 *
 * @example
 * const bank: BankAdapter = {
 *   name: 'My Bank',
 *   registerPayment: (p) => ({ bank: 'My Bank', bankRef: `P-${p.id}`, outcome: 'succeeded' }),
 *   registerPayout: (p) => ({ bank: 'My Bank', bankRef: `O-${p.id}`, outcome: 'succeeded' }),
 * };
 * createReference({ bank });
 */
export interface BankAdapter {
  readonly name: string;
  registerPayment(p: {
    id: string;
    amount: number;
    currency: string;
    method: string;
  }): BankAnswer<PaymentOutcome>;
  registerPayout(p: { id: string; amount: number; phone: string; bankId: string }): BankAnswer<PayoutOutcome>;
}

/**
 * The default live bank: deterministic, offline, and following the same amount rule as the test simulator
 * (docs/reference.md), so live flows can be rehearsed end to end. `bank_ref` is derived from the operation id.
 *
 * @example new FakeBank().registerPayment({ id, amount: 1000, currency: 'RUB', method: 'sbp' }).bankRef // 'PAY-…'
 */
export class FakeBank implements BankAdapter {
  constructor(readonly name = 'Reference Acquiring Bank') {}

  registerPayment(p: { id: string; amount: number }): BankAnswer<PaymentOutcome> {
    return this.#answer('payment', 'PAY', p.id, planPaymentOutcome(p.amount));
  }

  registerPayout(p: { id: string; amount: number }): BankAnswer<PayoutOutcome> {
    return this.#answer('payout', 'OUT', p.id, planPayoutOutcome(p.amount));
  }

  #answer<O extends string>(what: 'payment' | 'payout', kind: string, id: string, outcome: O): BankAnswer<O> {
    const answer = {
      bank: this.name,
      bankRef: `${kind}-${hmacSha256Hex('fake-bank', id).slice(0, 16).toUpperCase()}`,
      outcome,
    };
    if (outcome !== 'refused') return answer;
    return { ...answer, refusal: { code: `${what}_declined`, message: `The bank refused the ${what}.` } };
  }
}
