import { hmacSha256Hex } from '../../internal/hmac.js';
import { CODE } from '../../schemas/errors.js';
import { refuse } from './errors.js';

/** What an Idempotency-Key points at: the created object, the request's fingerprint, and when. */
export interface IdempotentEntry {
  objectId: string;
  fingerprint: string;
  at: number;
}

/** A creating POST as idempotency sees it (spec 5.6). */
export interface IdempotentRequest {
  merchantId: string;
  /** The `Idempotency-Key` header; `undefined` when none was sent (then every request creates). */
  key: string | undefined;
  /** The operation's `routeOf(name)` line (method and full path): one key on another route is a conflict. */
  route: string;
  /** The mode of the caller's key: one key from a test key and then a live key is a conflict. */
  mode: string;
  /** The parsed body: key order and whitespace do not matter, any value does. */
  body: unknown;
}

/** 409 `idempotent_conflict`: the key was used for another request (spec 5.6). */
export const idempotentConflict = () =>
  refuse(
    CODE.idempotent_conflict,
    'This Idempotency-Key was already used with a different request body or endpoint; use a new key for a new request.',
  );

/**
 * JSON with object keys sorted at every level, so two bodies that differ only in key order or whitespace give the
 * same text. Used on parsed, validated bodies only (bounded depth).
 *
 * @example canonicalJson({ b: 1, a: [2, { d: 3, c: 4 }] }) // '{"a":[2,{"c":4,"d":3}],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/**
 * Spec 5.6 for every creating POST (payments, refunds, payouts; see RecordStore.createOnce): keys are unique within
 * one merchant; the same key and body replay the earlier object, another body or route is 409
 * `idempotent_conflict`. Entries are kept for `ttlMs` on the service clock.
 */
export class IdempotencyStore {
  readonly #entries = new Map<string, IdempotentEntry>();
  readonly #now: () => number;
  readonly #ttlMs: number;

  constructor(now: () => number, ttlMs: number) {
    this.#now = now;
    this.#ttlMs = ttlMs;
  }

  /**
   * The one idempotency step: `replay(objectId)` when the key was used with this request before, a 409 when it was
   * used with another, else `create()`, remembered under the key. Look-up, creation and recording are one
   * synchronous step, so concurrent requests with one key can never make two objects; a `create` that throws (a
   * refusal) leaves the key free.
   */
  once<T>(
    request: IdempotentRequest,
    replay: (objectId: string) => T,
    create: () => { objectId: string; answer: T },
  ): T {
    if (request.key === undefined) return create().answer;
    const id = `${request.merchantId}\u0000${request.key}`;
    const fingerprint = hmacSha256Hex(
      'psp-reference-idempotency',
      `${request.route}\n${request.mode}\n${canonicalJson(request.body ?? {})}`,
    );
    this.#prune();
    const hit = this.#entries.get(id);
    if (hit !== undefined) {
      if (hit.fingerprint !== fingerprint) {
        throw idempotentConflict();
      }
      return replay(hit.objectId);
    }
    const { objectId, answer } = create();
    this.#entries.set(id, { objectId, fingerprint, at: this.#now() });
    return answer;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The entries by `${merchantId}\u0000${key}`, oldest first: what a snapshot saves and a restore refills. */
  get records(): Map<string, IdempotentEntry> {
    return this.#entries;
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
