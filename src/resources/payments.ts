import { ApiPromise, type ApiResult } from '../client/api-promise.js';
import { NotPendingError } from '../client/errors.js';
import type { RequestOptions } from '../client/options.js';
import type { Transport } from '../client/transport.js';
import {
  assertNoIssues,
  checkInput,
  idempotencyKeyIssue,
  idIssue,
  jsonBody,
  responseParser,
} from '../client/validate.js';
import { type CreatePaymentInput, type CreateRefundInput, inputSchemas } from '../schemas/inputs.js';
import type { CancelPaymentResponse, CreatePaymentResponse, Payment, Refund } from '../schemas/resources.js';

/**
 * Payments: create, read, cancel and refund (spec 4.1 to 4.4). Reached as `client.payments`.
 *
 * @example
 * const { payment, payment_url } = await client.payments.create({ amount: 249_900, order_id: 'A-1042' });
 */
export class Payments {
  readonly #t: Transport;
  readonly #strict: boolean;

  constructor(transport: Transport, strict: boolean) {
    this.#t = transport;
    this.#strict = strict;
  }

  /**
   * Creates a payment (`POST /payments`). Always sends an `Idempotency-Key` (a UUIDv4 unless given), the same on
   * every retry, so the call is retried safely; `withResponse()` exposes the key. A replay of a key with the same
   * body answers the original payment with `idempotent: true`.
   *
   * @throws {PspValidationError} before sending anything, naming every bad field.
   * @example
   * const res = await client.payments.create({ amount: 1000, currency: 'RUB' }, { idempotencyKey: `order-${id}` });
   * redirect(res.payment_url);
   */
  create(input: CreatePaymentInput, options?: RequestOptions): ApiPromise<CreatePaymentResponse> {
    return new ApiPromise(
      (async () => {
        checkInput(inputSchemas().CreatePaymentInput, input, idempotencyKeyIssue(options?.idempotencyKey));
        return this.#t.request(
          {
            method: 'POST',
            path: '/payments',
            body: jsonBody(input),
            idempotencyKey: options?.idempotencyKey ?? crypto.randomUUID(),
            safe: true,
            options,
          },
          responseParser(this.#strict, 'CreatePaymentResponse', 'payment creation'),
        );
      })(),
    );
  }

  /**
   * Reads a payment with its refunds and customer info (`GET /payments/{id}`).
   *
   * @throws {NotFoundError} when no payment of this merchant has the id.
   * @example
   * const { status, refunds } = await client.payments.get(paymentId);
   */
  get(id: string, options?: RequestOptions): ApiPromise<Payment> {
    return new ApiPromise(
      (async () => {
        assertNoIssues(idIssue('id', id));
        return this.#t.request(
          { method: 'GET', path: `/payments/${id}`, safe: true, options },
          responseParser(this.#strict, 'Payment', 'payment'),
        );
      })(),
    );
  }

  /**
   * Cancels a pending payment (`POST /payments/{id}/cancel`). Retried like a GET: if an earlier attempt went
   * through but its answer was lost, the retry's 409 `not_pending` is resolved by reading the payment, and a
   * payment that is `cancelled` counts as success.
   *
   * @throws {NotPendingError} when the payment is not pending (and was not cancelled by this call).
   * @example
   * await client.payments.cancel(paymentId); // { status: 'cancelled' }
   */
  cancel(id: string, options?: RequestOptions): ApiPromise<CancelPaymentResponse> {
    return new ApiPromise(
      (async (): Promise<ApiResult<CancelPaymentResponse>> => {
        assertNoIssues(idIssue('id', id));
        try {
          return await this.#t.request(
            { method: 'POST', path: `/payments/${id}/cancel`, safe: true, options },
            responseParser(this.#strict, 'CancelPaymentResponse', 'cancel answer'),
          );
        } catch (err) {
          if (!(err instanceof NotPendingError) || err.attempts < 2) throw err;
          let current: ApiResult<Payment>;
          try {
            current = await this.#t.request(
              { method: 'GET', path: `/payments/${id}`, safe: true, options },
              responseParser(this.#strict, 'Payment', 'payment'),
            );
          } catch {
            throw err;
          }
          if (current.data.status !== 'cancelled') throw err;
          return { ...current, data: { status: 'cancelled' }, attempts: err.attempts + current.attempts };
        }
      })(),
    );
  }

  /**
   * Refunds a succeeded payment in full or in part (`POST /payments/{id}/refund`). `amount` 0 or absent refunds
   * the whole remaining balance. Keyed like the creates, so retried safely.
   *
   * @throws {ConflictError} when the payment is not succeeded or is fully refunded.
   * @throws {UnprocessableEntityError} when `amount` exceeds the refundable balance.
   * @example
   * const refund = await client.payments.refund(paymentId, { amount: 500, reason: 'one item returned' });
   */
  refund(id: string, input: CreateRefundInput = {}, options?: RequestOptions): ApiPromise<Refund> {
    return new ApiPromise(
      (async () => {
        checkInput(inputSchemas().CreateRefundInput, input, [
          ...idIssue('id', id),
          ...idempotencyKeyIssue(options?.idempotencyKey),
        ]);
        return this.#t.request(
          {
            method: 'POST',
            path: `/payments/${id}/refund`,
            body: jsonBody(input),
            idempotencyKey: options?.idempotencyKey ?? crypto.randomUUID(),
            safe: true,
            options,
          },
          responseParser(this.#strict, 'Refund', 'refund'),
        );
      })(),
    );
  }
}
