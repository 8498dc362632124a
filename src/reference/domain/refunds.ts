import { inputSchemas } from '../../schemas/inputs.js';
import type { Refund } from '../../schemas/resources.js';
import type { Clock } from './clock.js';
import { DomainError } from './errors.js';
import type { EventBus } from './events.js';
import { newId } from './ids.js';
import { DEFAULTS } from './defaults.js';
import type { IdempotencyStore } from './idempotency.js';
import type { Created, Payments } from './payments.js';
import { type PaymentRecord, RefundRecord } from './records.js';
import { paymentToWire, refundToWire } from './serialize.js';
import { type Caller, parseBody } from './validate.js';

export interface RefundDeps {
  clock: Clock;
  bus: EventBus;
  idempotency: IdempotencyStore;
  payments: Payments;
}

/**
 * Refunds (spec 4.4, 3.2). A refund completes synchronously (`succeeded` at creation), so the sum of successful
 * refunds is the payment's `amount_refunded` at every instant; the balance check and the commit are one
 * synchronous step, so concurrent refunds can never exceed the amount.
 */
export class Refunds {
  readonly #d: RefundDeps;
  readonly #byId = new Map<string, RefundRecord>();

  constructor(deps: RefundDeps) {
    this.#d = deps;
  }

  get size(): number {
    return this.#byId.size;
  }

  /** `POST /payments/{id}/refund`. An absent or zero `amount` refunds the whole remaining balance. */
  create(
    caller: Caller,
    paymentId: string,
    raw: unknown,
    idempotencyKey: string | undefined,
  ): Created<Refund> {
    // Only an absent body means "refund the whole balance": a JSON `null` is a body, and not an object.
    const input = parseBody(inputSchemas(true).CreateRefundInput, raw === undefined ? {} : raw);
    const p = this.#d.payments.own(caller, paymentId);
    return this.#d.idempotency.once<Created<Refund>>(
      {
        merchantId: caller.merchant.id,
        key: idempotencyKey,
        route: `POST /api/v1/public/payments/${p.id}/refund`,
        mode: caller.key.mode,
        body: input,
      },
      (id) => ({ status: 200, body: refundToWire(this.#byId.get(id)!) }),
      () => {
        const r = this.#make(p, input.amount, input.reason);
        return { objectId: r.id, answer: { status: 201, body: refundToWire(r) } };
      },
    );
  }

  /** Checks the payment's state and balance, then records the refund and publishes it: nothing changes on a refusal. */
  #make(p: PaymentRecord, asked: number | undefined, reason: string | undefined): RefundRecord {
    if (p.status === 'refunded') {
      throw new DomainError(409, 'already_refunded', 'The payment is already fully refunded.');
    }
    if (p.status !== 'succeeded') {
      throw new DomainError(
        409,
        'not_succeeded',
        `Only a succeeded payment can be refunded; this one is ${p.status}.`,
      );
    }
    const available = p.amount - p.amountRefunded;
    const amount = asked ? asked : available;
    if (amount > available) {
      throw new DomainError(
        422,
        'amount_exceeds_balance',
        `The refund amount ${amount} is larger than the available balance ${available}.`,
      );
    }
    // The last refund a payment can have must return the whole balance, so no money is ever left unrefundable.
    const max = DEFAULTS.maxRefundsPerPayment;
    if ((p.refunds?.length ?? 0) >= max - 1 && amount < available) {
      throw new DomainError(
        409,
        'refund_limit_reached',
        `A payment can have at most ${max} refunds and this one has ${max - 1}: the last must refund the whole remaining balance of ${available} (send no amount).`,
      );
    }
    const now = this.#d.clock.now();
    const r = new RefundRecord(newId(), p.id, p.merchantId, amount, reason ?? null, now);
    r.completedAt = now;
    this.#byId.set(r.id, r);
    if (p.refunds) p.refunds.push(r);
    else p.refunds = [r];
    p.amountRefunded += amount;
    const fully = p.amountRefunded === p.amount;
    // The snapshot already shows the refund; `refunded` follows as its own status change.
    this.#d.bus.publish({
      type: 'refund.created',
      at: now,
      merchantId: p.merchantId,
      mode: p.mode,
      shopId: p.shopId,
      refund: refundToWire(r),
      payment: paymentToWire(p),
      webhookUrl: p.webhookUrl,
    });
    if (fully) this.#d.payments.move(p, 'refunded');
    return r;
  }
}
