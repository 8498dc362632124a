import { ApiPromise, type ApiResult } from '../client/api-promise.js';
import { NotPendingError } from '../client/errors.js';
import { defineMethod } from '../client/method.js';
import type { RequestOptions } from '../client/options.js';
import type { Transport } from '../client/transport.js';
import { FINAL_PAYMENT_STATUSES, PAYMENT_KINDS, type WaitForOptions, waitFor } from './wait-for.js';
import type { CreatePaymentInput, CreateRefundInput } from '../schemas/inputs.js';
import type {
  CancelPaymentResponse,
  CreatePaymentResponse,
  Payment,
  Refund,
  PaymentStatus,
} from '../schemas/resources.js';

const createPayment = defineMethod('payments.create');
const getPayment = defineMethod('payments.get');
const cancelPayment = defineMethod('payments.cancel');
const refundPayment = defineMethod('payments.refund');

/**
 * Payments: create, read, cancel and refund (spec 4.1 to 4.4). Reached as `client.payments`.
 *
 * @example
 * const { payment, payment_url } = await client.payments.create({ amount: 249_900, order_id: 'A-1042' });
 */
export class Payments {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Creates a payment (`payments.create`, spec 4.1). Always sends an `Idempotency-Key` (a UUIDv4 unless given), the same on
   * every retry, so the call is retried safely; `withResponse()` exposes the key. A replay of a key with the same
   * body answers the original payment with `idempotent: true`.
   *
   * @throws {PspValidationError} before sending anything, naming every bad field.
   * @example
   * const res = await client.payments.create({ amount: 1000, currency: 'RUB' }, { idempotencyKey: `order-${id}` });
   * redirect(res.payment_url);
   */
  create(input: CreatePaymentInput, options?: RequestOptions): ApiPromise<CreatePaymentResponse> {
    return createPayment(this.#transport, { input, options });
  }

  /**
   * Reads a payment with its refunds and customer info (`payments.get`, spec 4.2).
   *
   * @throws {NotFoundError} when no payment of this merchant has the id.
   * @example
   * const { status, refunds } = await client.payments.get(paymentId);
   */
  get(id: string, options?: RequestOptions): ApiPromise<Payment> {
    return getPayment(this.#transport, { id, options });
  }

  /**
   * Waits until the payment's status is in `until` (default: every final status) and resolves with the
   * payment; at once if it already is. Listens on this client's event stream while one is open (it never
   * opens one: a second stream would replace the app's), else reads it with backoff.
   *
   * @throws {WaitTimeoutError} after `timeout` (default 10 minutes), with the last payment read as `last`.
   * @example
   * const paid = await client.payments.waitFor(payment.id, { timeout: 120_000 });
   * if (paid.status === 'succeeded') ship(order);
   */
  waitFor(id: string, options?: WaitForOptions<PaymentStatus>): Promise<Payment> {
    return waitFor(
      {
        get: (signal) => this.get(id, { signal }),
        kinds: PAYMENT_KINDS,
        id,
        final: FINAL_PAYMENT_STATUSES,
        tap: this.#transport.tap,
      },
      options,
    );
  }

  /**
   * Cancels a pending payment (`payments.cancel`, spec 4.3). Retried like a GET: if an earlier attempt went
   * through but its answer was lost, the retry's 409 `not_pending` is resolved by reading the payment, and a
   * payment that is `cancelled` counts as success.
   *
   * @throws {NotPendingError} when the payment is not pending (and was not cancelled by this call).
   * @example
   * await client.payments.cancel(paymentId); // { status: 'cancelled' }
   */
  cancel(id: string, options?: RequestOptions): ApiPromise<CancelPaymentResponse> {
    return new ApiPromise(
      cancelPayment(this.#transport, { id, options })
        .withResponse()
        .catch(async (err: unknown): Promise<ApiResult<CancelPaymentResponse>> => {
          if (!(err instanceof NotPendingError) || err.attempts < 2) throw err;
          // An earlier attempt may have cancelled it: then the payment says so.
          const current = await getPayment(this.#transport, { id, options })
            .withResponse()
            .catch(() => {
              throw err;
            });
          if (current.data.status !== 'cancelled') throw err;
          return { ...current, data: { status: 'cancelled' }, attempts: err.attempts + current.attempts };
        }),
    );
  }

  /**
   * Refunds a succeeded payment in full or in part (`payments.refund`, spec 4.4). `amount` 0 or absent refunds
   * the whole remaining balance. Keyed like the creates, so retried safely.
   *
   * @throws {ConflictError} when the payment is not succeeded or is fully refunded.
   * @throws {UnprocessableEntityError} when `amount` exceeds the refundable balance.
   * @example
   * const refund = await client.payments.refund(paymentId, { amount: 500, reason: 'one item returned' });
   */
  refund(id: string, input: CreateRefundInput = {}, options?: RequestOptions): ApiPromise<Refund> {
    return refundPayment(this.#transport, { id, input, options });
  }
}
