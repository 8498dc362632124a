import { inputSchemas } from '../../schemas/inputs.js';
import type { CreatePaymentResponse, Payment, PaymentStatus } from '../../schemas/resources.js';
import type { BankAdapter } from './bank.js';
import type { Clock } from './clock.js';
import { DEFAULTS, PAYMENT_CURRENCIES } from './defaults.js';
import { DomainError } from './errors.js';
import type { EventBus } from './events.js';
import { newId } from './ids.js';
import type { IdempotencyStore } from './idempotency.js';
import { PAYMENT_DECLINE, PAYMENT_REFUSAL, planPaymentOutcome } from './outcomes.js';
import { PaymentRecord } from './records.js';
import type { Scheduler } from './scheduler.js';
import { paymentToWire } from './serialize.js';
import { type Caller, parseBody, requireOneOf } from './validate.js';

/** Spec 3.1 plus our readings of its "not shown" moves (docs/spec-decisions.md). Anything else is a 409. */
const ALLOWED: Record<PaymentStatus, readonly PaymentStatus[]> = {
  pending: ['processing', 'succeeded', 'failed', 'expired', 'cancelled'],
  processing: ['succeeded', 'failed', 'expired'],
  succeeded: ['refunded'],
  failed: [],
  expired: [],
  cancelled: [],
  refunded: [],
};

const FINAL: ReadonlySet<PaymentStatus> = new Set(['succeeded', 'failed', 'expired', 'cancelled']);

export interface PaymentDeps {
  clock: Clock;
  bus: EventBus;
  scheduler: Scheduler;
  idempotency: IdempotencyStore;
  bank: BankAdapter;
}

/** A creation answer and its status: 201 for a new payment, 200 for a replay. */
export interface Created<T> {
  status: 200 | 201;
  body: T;
}

/**
 * Payments: creation (with idempotency and the planned outcome), lookup, cancel and every status move, each
 * publishing its DomainEvent. Every method is synchronous, so check and commit never interleave.
 */
export class Payments {
  readonly #byId = new Map<string, PaymentRecord>();
  readonly #d: PaymentDeps;

  constructor(deps: PaymentDeps) {
    this.#d = deps;
  }

  get size(): number {
    return this.#byId.size;
  }

  /** `POST /payments`: `payBase` is the origin of `payment_url` (`${payBase}/pay/${id}`). */
  create(caller: Caller, raw: unknown, idempotencyKey: string | undefined, payBase: string) {
    const input = parseBody(inputSchemas(true).CreatePaymentInput, raw);
    const currency = input.currency ?? 'RUB';
    requireOneOf('currency', currency, PAYMENT_CURRENCIES);
    const mode = caller.key.mode;
    return this.#d.idempotency.once(
      {
        merchantId: caller.merchant.id,
        key: idempotencyKey,
        route: 'POST /api/v1/public/payments',
        mode,
        body: input,
      },
      (id) => this.#answer(this.#byId.get(id)!, payBase, true),
      () => {
        const now = this.#d.clock.now();
        const id = newId();
        const method = input.method ?? 'any';
        const live =
          mode === 'live' ? this.#d.bank.registerPayment({ id, ...input, currency, method }) : undefined;
        const p = new PaymentRecord({
          id,
          terminal: caller.terminal,
          mode,
          amount: input.amount,
          currency,
          method,
          orderId: input.order_id ?? null,
          customerId: input.customer_id ?? null,
          description: input.description ?? null,
          returnUrl: input.return_url ?? null,
          webhookUrl: input.webhook_url ?? null,
          metadata: input.metadata ? Object.freeze({ ...input.metadata }) : null,
          createdAt: now,
          expiresAt: now + DEFAULTS.linkLifetimeMs,
          outcome: live ? live.outcome : planPaymentOutcome(input.amount),
          bank: live ? live.bank : 'Simulator Bank',
          bankRef: live ? live.bankRef : null,
        });
        this.#byId.set(id, p);
        const snapshot = this.#publishCreated(p);
        if (p.outcome === 'refused') {
          const refusal = live?.refusal ?? PAYMENT_REFUSAL;
          this.move(p, 'failed', refusal.code, refusal.message);
        } else {
          this.#d.scheduler.at(p.expiresAt, () => {
            if (p.status === 'pending') this.move(p, 'expired');
          });
        }
        // The event's snapshot is the answer's payment while nothing moved it since (a move always changes the
        // status).
        return {
          objectId: p.id,
          answer: this.#answer(p, payBase, false, p.status === 'pending' ? snapshot : undefined),
        };
      },
    );
  }

  #answer(
    p: PaymentRecord,
    payBase: string,
    replay: boolean,
    wire?: Payment,
  ): Created<CreatePaymentResponse> {
    const body: CreatePaymentResponse = {
      payment: wire ?? paymentToWire(p),
      payment_url: `${payBase}/pay/${p.id}`,
      mode: p.mode,
    };
    if (replay) body.idempotent = true;
    if (p.mode === 'test') body.simulator = p.outcome;
    else {
      if (p.bank) body.bank = p.bank;
      if (p.bankRef) body.bank_ref = p.bankRef;
    }
    if (p.outcome === 'refused' && p.failureCode) {
      body.failure_code = p.failureCode;
      body.failure_message = p.failureMessage ?? '';
    }
    return { status: replay ? 200 : 201, body };
  }

  /** The payment as the caller may see it: same merchant and same mode, else 404 (no existence leak). */
  own(caller: Caller, id: string): PaymentRecord {
    const p = this.#byId.get(id);
    if (!p || p.merchantId !== caller.merchant.id || p.mode !== caller.key.mode) {
      throw new DomainError(404, 'not_found', 'No payment with this id.');
    }
    return p;
  }

  /** Any payment, for the control surface and the buyer's page. */
  find(id: string): PaymentRecord | undefined {
    return this.#byId.get(id);
  }

  get(id: string): PaymentRecord {
    const p = this.#byId.get(id);
    if (!p) throw new DomainError(404, 'not_found', 'No payment with this id.');
    return p;
  }

  /** `GET /payments/{id}`. */
  read(caller: Caller, id: string): Payment {
    return paymentToWire(this.own(caller, id));
  }

  /** `GET /payments/{id}` as its JSON text, serialised on every read (no cache to keep fresh). */
  readText(caller: Caller, id: string): string {
    return JSON.stringify(this.read(caller, id));
  }

  /** `POST /payments/{id}/cancel`: pending only, else 409 `not_pending`. */
  cancel(caller: Caller, id: string): { status: 'cancelled' } {
    const p = this.own(caller, id);
    if (p.status !== 'pending') {
      throw new DomainError(
        409,
        'not_pending',
        `Only a pending payment can be cancelled; this one is ${p.status}.`,
      );
    }
    this.move(p, 'cancelled');
    return { status: 'cancelled' };
  }

  /**
   * Moves a payment to `to` if spec 3.1 allows it, else 409 `invalid_transition`. Sets the timestamps of the new
   * status and publishes `payment.status_changed` with the wire snapshot.
   */
  move(p: PaymentRecord, to: PaymentStatus, failureCode?: string, failureMessage?: string): PaymentRecord {
    const from = p.status;
    if (!ALLOWED[from].includes(to)) {
      throw new DomainError(409, 'invalid_transition', `The payment is ${from} and cannot become ${to}.`);
    }
    const now = this.#d.clock.now();
    p.status = to;
    if (to === 'succeeded') p.capturedAt = now;
    if (FINAL.has(to)) p.finalizedAt = now;
    if (to === 'failed') {
      p.failureCode = failureCode ?? PAYMENT_DECLINE.code;
      p.failureMessage = failureMessage ?? PAYMENT_DECLINE.message;
    }
    if (to === 'processing') {
      const until = now + DEFAULTS.bankSessionMs;
      p.processingUntil = until;
      // The bank session ends with no final answer: expired (spec 3.1).
      this.#d.scheduler.at(until, () => {
        if (p.status === 'processing' && p.processingUntil === until) this.move(p, 'expired');
      });
    }
    this.#d.bus.publish({
      type: 'payment.status_changed',
      at: now,
      merchantId: p.merchantId,
      mode: p.mode,
      shopId: p.shopId,
      payment: paymentToWire(p),
      from,
      to,
      webhookUrl: p.webhookUrl,
    });
    return p;
  }

  /**
   * The buyer acts on the payment page. `pay` sends the payment to the bank (processing) and on to its planned
   * outcome; `decline` fails it. Only a pending payment can be acted on (409 otherwise).
   */
  buyerAct(id: string, action: 'pay' | 'decline'): PaymentRecord {
    const p = this.get(id);
    if (p.status !== 'pending') {
      throw new DomainError(409, 'not_pending', `The payment is ${p.status}; there is nothing to pay.`);
    }
    if (action === 'decline')
      return this.move(p, 'failed', 'declined_by_buyer', 'The buyer declined the payment.');
    this.move(p, 'processing');
    switch (p.outcome) {
      case 'succeeded':
        return this.move(p, 'succeeded');
      case 'failed':
        return this.move(p, 'failed');
      case 'processing_then_succeeded':
        this.#d.scheduler.at(this.#d.clock.now() + DEFAULTS.slowConfirmMs, () => {
          if (p.status === 'processing') this.move(p, 'succeeded');
        });
        return p;
      default:
        // 'expired': the bank never answers; the bank-session deadline set on entering processing expires it.
        return p;
    }
  }

  /** Publishes `payment.created`; returns the payment snapshot it carries. */
  #publishCreated(p: PaymentRecord): Payment {
    const payment = paymentToWire(p);
    this.#d.bus.publish({
      type: 'payment.created',
      at: p.createdAt,
      merchantId: p.merchantId,
      mode: p.mode,
      shopId: p.shopId,
      payment,
      webhookUrl: p.webhookUrl,
    });
    return payment;
  }
}
