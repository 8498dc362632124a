import { hmacSha256Hex } from '../../webhooks/hmac.js';
import { canonicalJson } from './canonical-json.js';
import { DomainError } from './errors.js';

/** What an Idempotency-Key points at: the created object and what its creation answer said besides it. */
export interface IdempotentEntry {
  kind: 'payment' | 'refund' | 'payout';
  objectId: string;
  fingerprint: string;
  at: number;
}

/**
 * Spec 5.6: keys are unique within one merchant. The fingerprint is a hash of the route, the key's mode and the
 * canonical JSON of the parsed body, so key order and whitespace do not matter but any change of value does.
 *
 * Check and commit are both synchronous: callers look up, create and `remember` with no `await` in between, so
 * concurrent requests with one key can never make two objects.
 *
 * @example
 * const fp = IdempotencyStore.fingerprint('POST /payments', 'test', body);
 * const hit = store.lookup(merchantId, key, fp); // undefined, or the earlier entry; 409 on another body
 */
export class IdempotencyStore {
  readonly #entries = new Map<string, IdempotentEntry>();
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(now: () => number, ttlMs: number) {
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  static fingerprint(route: string, mode: string, body: unknown): string {
    return hmacSha256Hex('psp-reference-idempotency', `${route}\n${mode}\n${canonicalJson(body ?? {})}`);
  }

  /** The earlier entry for this key, `undefined` when the key is new, or a 409 when its body differed. */
  lookup(merchantId: string, key: string, fingerprint: string): IdempotentEntry | undefined {
    this.#prune();
    const hit = this.#entries.get(`${merchantId}\u0000${key}`);
    if (!hit) return undefined;
    if (hit.fingerprint !== fingerprint) {
      throw new DomainError(
        409,
        'idempotent_conflict',
        'This Idempotency-Key was already used with a different request body or endpoint; use a new key for a new request.',
      );
    }
    return hit;
  }

  remember(merchantId: string, key: string, entry: Omit<IdempotentEntry, 'at'>): void {
    this.#entries.set(`${merchantId}\u0000${key}`, { ...entry, at: this.#now() });
  }

  get size(): number {
    return this.#entries.size;
  }

  // Entries are inserted in time order, so expired ones are at the front of the Map.
  #prune(): void {
    const cutoff = this.#now() - this.#ttlMs;
    for (const [k, e] of this.#entries) {
      if (e.at > cutoff) break;
      this.#entries.delete(k);
    }
  }
}
