import { CODE } from '../../schemas/errors.js';
import { DEFAULTS } from './defaults.js';
import { refuse } from './errors.js';

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

  /** What an object created from `body` counts: its overhead plus the UTF-8 bytes of its JSON. */
  static cost(body: unknown): number {
    return DEFAULTS.storedObjectBytes + utf8Length(JSON.stringify(body ?? null) ?? '');
  }

  /** Throws 409 `storage_limit_reached` when `bytes` more would pass the merchant's bound. */
  admit(merchantId: string, bytes: number): void {
    if (this.used(merchantId) + bytes <= this.#limit) return;
    const mib = Math.round(this.#limit / 2 ** 20);
    throw refuse(
      CODE.storage_limit_reached,
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

const ASCII = /^[\0-\x7f]*$/;

/**
 * The UTF-8 length of `text` without encoding it (TextEncoder would copy it whole). UTF-16 code units undercount
 * what is held: a Cyrillic letter is one unit but two bytes (and two bytes of heap in the engine's two-byte
 * strings), an emoji two units and four bytes. A lone surrogate counts 3, as the U+FFFD it is encoded as.
 *
 * @example utf8Length('жж') // 4
 */
export function utf8Length(text: string): number {
  if (ASCII.test(text)) return text.length;
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c < 0xdc00 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
