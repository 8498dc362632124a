import { ApiPromise } from '../client/api-promise.js';
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
import { type CreatePayoutInput, inputSchemas } from '../schemas/inputs.js';
import type { CreatePayoutResponse, Payout } from '../schemas/resources.js';

/**
 * SBP payouts to a phone number (spec 4.5, 4.6). Reached as `client.payouts`.
 *
 * @example
 * const { payout } = await client.payouts.create({ amount: 50_000, phone: '+79001234567', bank_id: '100000000111' });
 */
export class Payouts {
  readonly #t: Transport;
  readonly #strict: boolean;

  constructor(transport: Transport, strict: boolean) {
    this.#t = transport;
    this.#strict = strict;
  }

  /**
   * Creates a payout (`POST /payouts`). `bank_id` is a `member_id` from `client.banks.list()`. Always keyed with
   * an `Idempotency-Key` (a UUIDv4 unless given), so retries never pay twice.
   *
   * @throws {PspValidationError} before sending anything (phone `+7` and 10 digits, bank_id 12 digits, amount >= 1).
   * @throws {UnprocessableEntityError} when the route is not configured or the bank does not support the method.
   * @example
   * const res = await client.payouts.create(
   *   { amount: 50_000, phone: '+79001234567', bank_id: bank.member_id, full_name: 'Ivan Petrov' },
   *   { idempotencyKey: `withdrawal-${id}` },
   * );
   */
  create(input: CreatePayoutInput, options?: RequestOptions): ApiPromise<CreatePayoutResponse> {
    return new ApiPromise(
      (async () => {
        checkInput(inputSchemas().CreatePayoutInput, input, idempotencyKeyIssue(options?.idempotencyKey));
        return this.#t.request(
          {
            method: 'POST',
            path: '/payouts',
            body: jsonBody(input),
            idempotencyKey: options?.idempotencyKey ?? crypto.randomUUID(),
            safe: true,
            options,
          },
          responseParser(this.#strict, 'CreatePayoutResponse', 'payout creation'),
        );
      })(),
    );
  }

  /**
   * Reads a payout (`GET /payouts/{id}`).
   *
   * @throws {NotFoundError} when no payout of this merchant has the id.
   * @example
   * const { status, fail_reason } = await client.payouts.get(payoutId);
   */
  get(id: string, options?: RequestOptions): ApiPromise<Payout> {
    return new ApiPromise(
      (async () => {
        assertNoIssues(idIssue('id', id));
        return this.#t.request(
          { method: 'GET', path: `/payouts/${id}`, safe: true, options },
          responseParser(this.#strict, 'Payout', 'payout'),
        );
      })(),
    );
  }
}
