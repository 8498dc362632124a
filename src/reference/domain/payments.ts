import { CODE } from '../../schemas/errors.js';
import { routeOf } from '../../schemas/operations.js';
import { type CreatePaymentInput, inputSchemas } from '../../schemas/inputs.js';
import type { CreatePaymentResponse, PaymentStatus } from '../../schemas/resources.js';
import { DEFAULTS } from './defaults.js';
import { refuse } from './errors.js';
import { origin } from './events.js';
import { newId } from './ids.js';
import { PAYMENT_DECLINE, PAYMENT_REFUSAL, planPaymentOutcome } from './outcomes.js';
import { PaymentRecord } from './records.js';
import { paymentToWire } from './serialize.js';
import { type Created, owned, RecordStore, type StoreDeps } from './store.js';
import { type Caller, parseBody } from './validate.js';

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

/** The payments, a {@link RecordStore}: creation (with idempotency and the planned outcome), lookup, cancel, every move. */
export class PaymentStore extends RecordStore<PaymentRecord> {
  constructor(deps: StoreDeps) {
    super(deps, 'payment');
  }

  /** `payments.create`: `payBase` is the origin of `payment_url` (`${payBase}/pay/${id}`). */
  create(
    caller: Caller,
    raw: unknown,
    idempotencyKey: string | undefined,
    payBase: string,
  ): Created<CreatePaymentResponse> {
    const input = parseBody(inputSchemas(true).CreatePaymentInput, raw);
    // The schema has refused a currency outside PAYMENT_CURRENCIES (src/schemas, the document's enum too).
    const currency = input.currency ?? 'RUB';
    return this.createOnce(
      caller,
      { route: routeOf('payments.create'), key: idempotencyKey, body: input },
      (p, replay) => this.#answer(p, payBase, replay),
      () => this.#make(caller, input, currency),
    );
  }

  /** Stores a new payment, publishes `payment.created`, and fails it at once on a planned refusal or sets its expiry. */
  #make(caller: Caller, input: CreatePaymentInput, currency: string): PaymentRecord {
    const mode = caller.key.mode;
    const now = this.d.clock.now();
    const id = newId();
    const method = input.method ?? 'any';
    const live =
      mode === 'live' ? this.d.bank.registerPayment({ id, ...input, currency, method }) : undefined;
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
    this.records.set(id, p);
    this.d.bus.publish({
      type: 'payment.created',
      at: p.createdAt,
      ...origin(p),
      payment: paymentToWire(p),
      webhookUrl: p.webhookUrl,
    });
    if (p.outcome === 'refused') {
      const refusal = live?.refusal ?? PAYMENT_REFUSAL;
      this.move(p, 'failed', refusal.code, refusal.message);
    } else this.#armExpiry(p);
    return p;
  }

  #armExpiry(p: PaymentRecord): void {
    this.d.scheduler.at(p.expiresAt, () => {
      if (p.status === 'pending') this.move(p, 'expired');
    });
  }

  // The bank session ends with no final answer: expired (spec 3.1).
  #armSession(p: PaymentRecord, until: number): void {
    this.d.scheduler.at(until, () => {
      if (p.status === 'processing' && p.processingUntil === until) this.move(p, 'expired');
    });
  }

  #armSlowConfirm(p: PaymentRecord, at: number): void {
    this.d.scheduler.at(at, () => {
      if (p.status === 'processing') this.move(p, 'succeeded');
    });
  }

  /**
   * Sets the deadlines of a restored payment from its fields: link expiry, bank session, and a slow bank's confirm
   * (`slowConfirmMs` after it began processing; the record does not say whether the buyer or the simulator moved
   * it there, so a restored slow-bank payment in `processing` is confirmed either way).
   */
  rearm(p: PaymentRecord): void {
    if (p.status === 'pending') this.#armExpiry(p);
    if (p.status !== 'processing' || p.processingUntil === null) return;
    this.#armSession(p, p.processingUntil);
    if (p.outcome === 'processing_then_succeeded')
      this.#armSlowConfirm(p, p.processingUntil - DEFAULTS.bankSessionMs + DEFAULTS.slowConfirmMs);
  }

  #answer(p: PaymentRecord, payBase: string, replay: boolean): CreatePaymentResponse {
    const body: CreatePaymentResponse = {
      payment: paymentToWire(p),
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
    return body;
  }

  /** The payment as the caller may see it: same merchant and same mode, else 404 (no existence leak). */
  own(caller: Caller, id: string): PaymentRecord {
    return owned(caller, this.records.get(id), 'payment');
  }

  /** Any payment or none, for the buyer's page. */
  find(id: string): PaymentRecord | undefined {
    return this.records.get(id);
  }

  /** `payments.get` as its JSON text, serialised on every read (no cache to keep fresh). */
  readText(caller: Caller, id: string): string {
    return JSON.stringify(paymentToWire(this.own(caller, id)));
  }

  /** `payments.cancel`: pending only, else 409 `not_pending`. */
  cancel(caller: Caller, id: string): { status: 'cancelled' } {
    const p = this.own(caller, id);
    if (p.status !== 'pending') {
      throw refuse(CODE.not_pending, `Only a pending payment can be cancelled; this one is ${p.status}.`);
    }
    this.move(p, 'cancelled');
    return { status: 'cancelled' };
  }

  /**
   * Moves a payment to `to` if spec 3.1 allows it, else 409 `invalid_transition`. Sets the timestamps of the new
   * status and publishes `payment.status_changed` with the wire snapshot.
   */
  move(p: PaymentRecord, to: PaymentStatus, failureCode?: string, failureMessage?: string): PaymentRecord {
    this.change(p, to, failureCode, failureMessage)();
    return p;
  }

  /**
   * {@link move} in two steps: the state changes now, and `payment.status_changed` is published when the returned
   * function is called. A refund that completes a payment uses it so that its own event (published first, as
   * the stream has always ordered them) already shows the payment `refunded`.
   */
  change(p: PaymentRecord, to: PaymentStatus, failureCode?: string, failureMessage?: string): () => void {
    const from = p.status;
    if (!ALLOWED[from].includes(to)) {
      throw refuse(CODE.invalid_transition, `The payment is ${from} and cannot become ${to}.`);
    }
    const now = this.d.clock.now();
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
      this.#armSession(p, until);
    }
    const payment = paymentToWire(p);
    return () =>
      this.d.bus.publish({
        type: 'payment.status_changed',
        at: now,
        ...origin(p),
        payment,
        from,
        to,
        webhookUrl: p.webhookUrl,
      });
  }

  /**
   * The buyer acts on the payment page. `pay` sends the payment to the bank (processing) and on to its planned
   * outcome; `decline` fails it. Only a pending payment can be acted on (409 otherwise).
   */
  buyerAct(id: string, action: 'pay' | 'decline'): PaymentRecord {
    const p = this.get(id);
    if (p.status !== 'pending') {
      throw refuse(CODE.not_pending, `The payment is ${p.status}; there is nothing to pay.`);
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
        this.#armSlowConfirm(p, this.d.clock.now() + DEFAULTS.slowConfirmMs);
        return p;
      default:
        // 'expired': the bank never answers; the bank-session deadline set on entering processing expires it.
        return p;
    }
  }
}
