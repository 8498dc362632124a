/**
 * The upstream's ids and the in-process reference's ids of the same objects, learnt from the two answers to each
 * request, so that a follow-up call (`payments.get`, `payments.refund`, `payouts.get`) reaches the matching object
 * on the replay. Bounded: past `max` ids the oldest are forgotten (a follow-up on one then replays as a 404,
 * reported as a difference).
 */
export class IdMap {
  readonly #max: number;
  readonly #ids = new Map<string, string>();

  constructor(max: number) {
    this.#max = max;
  }

  get size(): number {
    return this.#ids.size;
  }

  /** Pairs every `id` / `*_id` string found at the same place of both bodies where the two differ. */
  learn(upstream: unknown, replay: unknown): void {
    walk(upstream, replay, '', (u, r) => {
      this.#ids.delete(u);
      this.#ids.set(u, r);
      if (this.#ids.size > this.#max) this.#ids.delete(this.#ids.keys().next().value as string);
    });
  }

  /** `path` with each segment that is a known upstream id replaced by the reference's. */
  path(path: string): string {
    return path
      .split('/')
      .map((segment) => this.#ids.get(segment) ?? segment)
      .join('/');
  }
}

function walk(u: unknown, r: unknown, key: string, pair: (u: string, r: string) => void): void {
  if (typeof u === 'string' && typeof r === 'string') {
    if ((key === 'id' || key.endsWith('_id')) && u !== r) pair(u, r);
    return;
  }
  if (Array.isArray(u) && Array.isArray(r)) {
    // Lists keep the order of creation in both: the n-th of one is the n-th of the other.
    for (let i = 0; i < Math.min(u.length, r.length); i++) walk(u[i], r[i], key, pair);
    return;
  }
  if (u && r && typeof u === 'object' && typeof r === 'object') {
    for (const [k, v] of Object.entries(u)) {
      if (Object.hasOwn(r, k)) walk(v, (r as Record<string, unknown>)[k], k, pair);
    }
  }
}
