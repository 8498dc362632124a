/** What the bound needs of a delivery series: the bytes of the body it keeps alive. */
export interface Bounded {
  readonly bytes: number;
}

interface Group<D> {
  /** In start order: the first is the oldest. */
  items: Set<D>;
  bytes: number;
}

/**
 * The bound on pending delivery series per endpoint (queued, in flight, or waiting for a retry): at most
 * `maxCount` of them and `maxBytes` of their bodies. A receiver that is down while the service clock stands still
 * never drains its retries, so without this bound one key's events would grow memory without end.
 */
export class PendingBound<D extends Bounded> {
  readonly #groups = new Map<string, Group<D>>();
  readonly maxCount: number;
  readonly maxBytes: number;

  constructor(maxCount: number, maxBytes: number) {
    this.maxCount = maxCount;
    this.maxBytes = maxBytes;
  }

  /**
   * Counts `item` under `key` and answers the oldest series of that key to give up so the bound holds again,
   * oldest first. The newest series is never given up, so an event whose body alone exceeds `maxBytes` is still
   * attempted.
   */
  add(key: string, item: D): D[] {
    let group = this.#groups.get(key);
    if (!group) {
      group = { items: new Set(), bytes: 0 };
      this.#groups.set(key, group);
    }
    group.items.add(item);
    group.bytes += item.bytes;
    const out: D[] = [];
    while (group.items.size > this.maxCount || group.bytes > this.maxBytes) {
      const oldest = group.items.values().next().value as D;
      if (oldest === item) break;
      this.remove(key, oldest);
      out.push(oldest);
    }
    return out;
  }

  /** Stops counting `item` (its series ended); nothing when it was not counted. */
  remove(key: string, item: D): void {
    const group = this.#groups.get(key);
    if (!group?.items.delete(item)) return;
    group.bytes -= item.bytes;
    if (group.items.size === 0) this.#groups.delete(key);
  }

  /** Series counted under `key`, and the bytes of their bodies. */
  of(key: string): { count: number; bytes: number } {
    const group = this.#groups.get(key);
    return { count: group?.items.size ?? 0, bytes: group?.bytes ?? 0 };
  }
}
