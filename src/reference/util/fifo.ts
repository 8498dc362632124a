/** A first-in, first-out queue with O(1) push and shift (an array with a moving head, compacted now and then). */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** The items, oldest first, without removing them. */
  *[Symbol.iterator](): IterableIterator<T> {
    for (let i = this.#head; i < this.#items.length; i++) yield this.#items[i] as T;
  }

  /** Forgets every item. */
  clear(): void {
    this.#items = [];
    this.#head = 0;
  }

  /** Empties the queue, handing each item to `fn` in order. */
  drain(fn: (item: T) => void): void {
    for (let item = this.shift(); item !== undefined; item = this.shift()) fn(item);
  }
}
