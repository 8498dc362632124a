import type { Clock, Timer } from './clock.js';

interface Entry {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * Deadlines of the domain (link expiry, bank sessions, payout completion) on the service clock. One clock timer
 * is armed for the earliest deadline, whatever the number of deadlines: 100,000 pending payments cost a heap
 * entry each, not a timer each. A callback re-checks its object's state, so "cancelling" is never needed.
 */
export class Scheduler {
  readonly #clock: Clock;
  readonly #heap: Entry[] = [];
  #seq = 0;
  #timer: Timer | undefined;
  #closed = false;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Runs `fn` once the service clock reaches `at` (epoch ms). */
  at(at: number, fn: () => void): void {
    if (this.#closed) return;
    const entry = { at, seq: this.#seq++, fn };
    this.#push(entry);
    // Only a new earliest deadline moves the one clock timer.
    if (this.#heap[0] === entry) this.#arm();
  }

  /** Number of deadlines waiting. */
  get size(): number {
    return this.#heap.length;
  }

  /** Drops every deadline and stays usable (a restore re-arms those of the restored state). */
  clear(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#heap.length = 0;
  }

  close(): void {
    this.#closed = true;
    this.clear();
  }

  #arm(): void {
    this.#timer?.cancel();
    const top = this.#heap[0];
    this.#timer = top && this.#clock.setTimer(Math.max(0, top.at - this.#clock.now()), () => this.#fire());
  }

  #fire(): void {
    this.#timer = undefined;
    const now = this.#clock.now();
    for (let top = this.#heap[0]; top && top.at <= now; top = this.#heap[0]) {
      this.#pop();
      try {
        top.fn();
      } catch {
        // One broken deadline must not stop the others.
      }
    }
    if (!this.#closed) this.#arm();
  }

  #less(a: Entry, b: Entry): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  #push(e: Entry): void {
    const h = this.#heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  #pop(): void {
    const h = this.#heap;
    const last = h.pop()!;
    if (h.length === 0) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && this.#less(h[l]!, h[m]!)) m = l;
      if (r < h.length && this.#less(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}
