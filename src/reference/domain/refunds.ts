import { inputSchemas } from '../../schemas/inputs.js';
import type { Refund } from '../../schemas/resources.js';
import type { Clock } from './clock.js';
import { DomainError } from './errors.js';
import type { EventBus } from './events.js';
import { newId } from './ids.js';
import { IdempotencyStore } from './idempotency.js';
import type { Created, Payments } from './payments.js';
import { RefundRecord } from './records.js';
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
    const input = parseBody(inputSchemas(true).CreateRefundInput, raw ?? {});
    const p = this.#d.payments.own(caller, paymentId);
    // The fingerprint (canonical JSON and a hash) is only ever compared or stored under an Idempotency-Key.
    const fp =
      idempotencyKey === undefined
        ? ''
        : IdempotencyStore.fingerprint(`POST /api/v1/public/payments/${p.id}/refund`, caller.key.mode, input);
    if (idempotencyKey !== undefined) {
      const hit = this.#d.idempotency.lookup(caller.merchant.id, idempotencyKey, fp);
      if (hit) return { status: 200, body: refundToWire(this.#byId.get(hit.objectId)!) };
    }
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
    const amount = input.amount ? input.amount : available;
    if (amount > available) {
      throw new DomainError(
        422,
        'amount_exceeds_balance',
        `The refund amount ${amount} is larger than the available balance ${available}.`,
      );
    }
    const now = this.#d.clock.now();
    const r = new RefundRecord(newId(), p.id, p.merchantId, amount, input.reason ?? null, now);
    r.completedAt = now;
    this.#byId.set(r.id, r);
    if (p.refunds) p.refunds.push(r);
    else p.refunds = [r];
    p.amountRefunded += amount;
    if (idempotencyKey !== undefined) {
      this.#d.idempotency.remember(caller.merchant.id, idempotencyKey, {
        kind: 'refund',
        objectId: r.id,
        fingerprint: fp,
      });
    }
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
    return { status: 201, body: refundToWire(r) };
  }
}
