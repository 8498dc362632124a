import { ApiPromise, type ApiResult } from '../client/api-promise.js';
import { defineMethod } from '../client/method.js';
import type { RequestOptions } from '../client/options.js';
import type { Transport } from '../client/transport.js';
import type { BankList } from '../schemas/resources.js';

const listBanks = defineMethod('banks.list');

/**
 * Options of `client.banks.list()`.
 *
 * @example
 * await client.banks.list({ refresh: true });
 */
export interface BankListOptions extends RequestOptions {
  /** Skip the cache and fetch the directory now (the answer then refills the cache). Default false. */
  refresh?: boolean | undefined;
}

/**
 * The SBP bank directory (spec 4.7). Reached as `client.banks`. The directory changes rarely, so answers are
 * kept in memory for the client's `banksCacheTtl` (default 1 hour; 0 disables).
 *
 * @example
 * const { items } = await client.banks.list();
 * const bank = items.find((b) => b.name_en === 'Sberbank');
 */
export class Banks {
  readonly #transport: Transport;
  readonly #ttl: number;
  #cached: { result: ApiResult<BankList>; expires: number } | undefined;

  constructor(transport: Transport, ttl: number) {
    this.#transport = transport;
    this.#ttl = ttl;
  }

  /**
   * Lists the participants of SBP (`banks.list`, spec 4.7); `member_id` is the `bank_id` of a payout. Served from the
   * cache while fresh; each call gets its own copy, so changing it does not change the cache.
   *
   * @example
   * const { items } = await client.banks.list();
   */
  list(options?: BankListOptions): ApiPromise<BankList> {
    return new ApiPromise(
      (async () => {
        const hit = this.#cached;
        if (hit && !options?.refresh && Date.now() < hit.expires) return copy(hit.result);
        const result = await listBanks(this.#transport, { options }).withResponse();
        if (this.#ttl > 0) this.#cached = { result, expires: Date.now() + this.#ttl };
        return copy(result);
      })(),
    );
  }

  /** Forgets the cached directory; the next `list()` fetches it. @example client.banks.clearCache(); */
  clearCache(): void {
    this.#cached = undefined;
  }
}

function copy(r: ApiResult<BankList>): ApiResult<BankList> {
  return { ...r, data: { ...r.data, items: r.data.items.map((b) => ({ ...b })) } };
}
