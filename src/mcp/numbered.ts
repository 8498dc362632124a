// What the event buffer and the webhook inbox both are: the newest items of a feed, numbered in order of arrival,
// which a reader asks for "after the number I last saw" and may wait on for a while when nothing is there yet.

/** An item of a {@link Numbered} list: its own fields and its number, from 1. */
export type WithSeq<T> = { seq: number } & T;

/** A list that keeps the newest `max` items, numbered from 1, and wakes the readers waiting for one. */
export class Numbered<T extends object> {
  readonly #items: Array<WithSeq<T>> = [];
  #seq = 0;
  readonly #waiters = new Set<() => void>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** The number of the last item that came (0 before the first). */
  get last(): number {
    return this.#seq;
  }

  /** The number of the oldest item still kept, or the next one's when none is. */
  get first(): number {
    return this.#items[0]?.seq ?? this.#seq + 1;
  }

  push(item: T): void {
    this.#items.push({ seq: ++this.#seq, ...item });
    if (this.#items.length > this.#max) this.#items.shift();
    this.wake();
  }

  /** The items after `cursor`, oldest first. */
  after(cursor: number): Array<WithSeq<T>> {
    return this.#items.filter((item) => item.seq > cursor);
  }

  /** Waits up to `waitMs` for an item after `cursor`, or until {@link wake}; returns at once when there is one. */
  async wait(cursor: number, waitMs: number): Promise<void> {
    if (waitMs <= 0 || this.#seq > cursor) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, waitMs);
      this.#waiters.add(done);
    });
  }

  /** Ends every wait now (a new item, or the feed ended). */
  wake(): void {
    for (const done of this.#waiters) done();
  }
}
