import type { ApiPromise } from '../client/api-promise.js';
import { defineMethod } from '../client/method.js';
import type { RequestOptions } from '../client/options.js';
import type { Transport } from '../client/transport.js';
import { FINAL_PAYOUT_STATUSES, PAYOUT_KINDS, type WaitForOptions, waitFor } from './wait-for.js';
import type { CreatePayoutInput } from '../schemas/inputs.js';
import type { CreatePayoutResponse, Payout, PayoutStatus } from '../schemas/resources.js';

const createPayout = defineMethod('payouts.create');
const getPayout = defineMethod('payouts.get');

/**
 * SBP payouts to a phone number (spec 4.5, 4.6). Reached as `client.payouts`.
 *
 * @example
 * const { payout } = await client.payouts.create({ amount: 50_000, phone: '+79001234567', bank_id: '100000000111' });
 */
export class Payouts {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /**
   * Creates a payout (`payouts.create`, spec 4.5). `bank_id` is a `member_id` from `client.banks.list()`. Always keyed with
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
    return createPayout(this.#transport, { input, options });
  }

  /**
   * Reads a payout (`payouts.get`, spec 4.6).
   *
   * @throws {NotFoundError} when no payout of this merchant has the id.
   * @example
   * const { status, fail_reason } = await client.payouts.get(payoutId);
   */
  get(id: string, options?: RequestOptions): ApiPromise<Payout> {
    return getPayout(this.#transport, { id, options });
  }

  /**
   * Waits until the payout's status is in `until` (default: every final status) and resolves with the
   * payout; at once if it already is. Listens on this client's event stream while one is open (it never
   * opens one: a second stream would replace the app's), else reads it with backoff.
   *
   * @throws {WaitTimeoutError} after `timeout` (default 10 minutes), with the last payout read as `last`.
   * @example
   * const done = await client.payouts.waitFor(payout.id);
   * if (done.status === 'failed') console.log(done.fail_reason);
   */
  waitFor(id: string, options?: WaitForOptions<PayoutStatus>): Promise<Payout> {
    return waitFor(
      {
        get: (signal) => this.get(id, { signal }),
        kinds: PAYOUT_KINDS,
        id,
        final: FINAL_PAYOUT_STATUSES,
        tap: this.#transport.tap,
      },
      options,
    );
  }
}
