import { CODE } from '../../schemas/errors.js';
import { routeOf } from '../../schemas/operations.js';
import { inputSchemas } from '../../schemas/inputs.js';
import type { Refund } from '../../schemas/resources.js';
import { DEFAULTS } from './defaults.js';
import { refuse } from './errors.js';
import { origin } from './events.js';
import { newId } from './ids.js';
import type { PaymentStore } from './payments.js';
import { type PaymentRecord, RefundRecord } from './records.js';
import { paymentToWire, refundToWire } from './serialize.js';
import { type Created, RecordStore, type StoreDeps } from './store.js';
import { type Caller, parseBody } from './validate.js';

/**
 * The refunds, a {@link RecordStore} (spec 4.4, 3.2). A refund completes synchronously (`succeeded` at creation),
 * so the sum of successful refunds is the payment's `amount_refunded` at every instant; the balance check and the
 * commit are one synchronous step, so concurrent refunds can never exceed the amount.
 */
export class RefundStore extends RecordStore<RefundRecord> {
  readonly #payments: PaymentStore;

  constructor(deps: StoreDeps, payments: PaymentStore) {
    super(deps, 'refund');
    this.#payments = payments;
  }

  /** `payments.refund`. An absent or zero `amount` refunds the whole remaining balance. */
  create(
    caller: Caller,
    paymentId: string,
    raw: unknown,
    idempotencyKey: string | undefined,
  ): Created<Refund> {
    // Only an absent body means "refund the whole balance": a JSON `null` is a body, and not an object.
    const input = parseBody(inputSchemas(true).CreateRefundInput, raw === undefined ? {} : raw);
    const p = this.#payments.own(caller, paymentId);
    return this.createOnce(
      caller,
      { route: routeOf('payments.refund', p.id), key: idempotencyKey, body: input },
      refundToWire,
      () => this.#make(p, input.amount, input.reason),
    );
  }

  /** Checks the payment's state and balance, then records the refund and publishes it: nothing changes on a refusal. */
  #make(p: PaymentRecord, asked: number | undefined, reason: string | undefined): RefundRecord {
    if (p.status === 'refunded') {
      throw refuse(CODE.already_refunded, 'The payment is already fully refunded.');
    }
    if (p.status !== 'succeeded') {
      throw refuse(CODE.not_succeeded, `Only a succeeded payment can be refunded; this one is ${p.status}.`);
    }
    const available = p.amount - p.amountRefunded;
    const amount = asked ? asked : available;
    if (amount > available) {
      throw refuse(
        CODE.amount_exceeds_balance,
        // An amount past 2^53 - 1 is not the number that was sent (JSON lost its digits): not echoed.
        `The refund amount${Number.isSafeInteger(amount) ? ` ${amount}` : ''} is larger than the available balance ${available}.`,
      );
    }
    // The last refund a payment can have must return the whole balance, so no money is ever left unrefundable.
    const max = DEFAULTS.maxRefundsPerPayment;
    if ((p.refunds?.length ?? 0) >= max - 1 && amount < available) {
      throw refuse(
        CODE.refund_limit_reached,
        `A payment can have at most ${max} refunds and this one has ${max - 1}: the last must refund the whole remaining balance of ${available} (send no amount).`,
      );
    }
    const now = this.d.clock.now();
    const r = new RefundRecord(newId(), p.id, p.merchantId, amount, reason ?? null, now);
    r.completedAt = now;
    this.records.set(r.id, r);
    if (p.refunds) p.refunds.push(r);
    else p.refunds = [r];
    p.amountRefunded += amount;
    // A refund that returns the last of the amount makes the payment `refunded` in the same step: its event
    // carries the payment as it now is (spec 2.10, docs/spec-decisions.md), and `payment.status_changed` follows.
    const announceRefunded = p.amountRefunded === p.amount ? this.#payments.change(p, 'refunded') : undefined;
    this.d.bus.publish({
      type: 'refund.created',
      at: now,
      ...origin(p),
      refund: refundToWire(r),
      payment: paymentToWire(p),
      webhookUrl: p.webhookUrl,
    });
    announceRefunded?.();
    return r;
  }
}
