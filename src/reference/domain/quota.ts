import { DEFAULTS } from './defaults.js';
import { DomainError } from './errors.js';

/**
 * The bound on what one merchant's keys can make the reference keep (the guide's rule: no key grows memory
 * without bound). Nothing is evicted, since a forgotten object would break a later refund or idempotent replay:
 * past the bound a creation is refused and changes nothing.
 */
export class StorageQuota {
  readonly #used = new Map<string, number>();
  readonly #limit: number;

  constructor(limit: number = DEFAULTS.maxStoredBytesPerMerchant) {
    this.#limit = limit;
  }

  /** What an object created from `body` counts. */
  static cost(body: unknown): number {
    return DEFAULTS.storedObjectBytes + (JSON.stringify(body ?? null)?.length ?? 0);
  }

  /** Throws 409 `storage_limit_reached` when `bytes` more would pass the merchant's bound. */
  admit(merchantId: string, bytes: number): void {
    if (this.used(merchantId) + bytes <= this.#limit) return;
    const mib = Math.round(this.#limit / 2 ** 20);
    throw new DomainError(
      409,
      'storage_limit_reached',
      `This merchant's payments, refunds and payouts fill the reference's ${mib} MiB per merchant; restore a snapshot or restart the reference to start afresh.`,
    );
  }

  add(merchantId: string, bytes: number): void {
    this.#used.set(merchantId, this.used(merchantId) + bytes);
  }

  used(merchantId: string): number {
    return this.#used.get(merchantId) ?? 0;
  }

  /** Counts afresh, after a restore swapped every record. */
  replace(usage: Map<string, number>): void {
    this.#used.clear();
    for (const [id, bytes] of usage) this.#used.set(id, bytes);
  }
}
