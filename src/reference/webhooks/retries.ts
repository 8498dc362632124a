import type { Clock, Timer } from '../domain/clock.js';

/** Delays before retries 1..8 (spec 6.1), in ms of the service clock: 9 attempts in all, about 3.5 days. */
export const RETRY_DELAYS_MS = [
  10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000, 172_800_000,
] as const;
/** Attempts per delivery series: the first and 8 retries. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

interface Batch<T> {
  items: Set<T>;
  timer: Timer;
}

/**
 * Retry timers grouped by due time: one clock timer per instant, however many deliveries fall due then. A manual
 * clock fires its timers one after another and awaits each, so one timer per delivery would send a backlog one
 * request at a time; a batch goes out concurrently (up to the dispatcher's in-flight bound), and the clock still
 * moves on only once the whole batch has been attempted.
 */
export class RetryTimers<T> {
  readonly #clock: Clock;
  readonly #fire: (items: T[]) => Promise<void>;
  readonly #batches = new Map<number, Batch<T>>();

  constructor(clock: Clock, fire: (items: T[]) => Promise<void>) {
    this.#clock = clock;
    this.#fire = fire;
  }

  /** Runs `item` in the batch due `delayMs` from now; the answer cancels just this item. */
  schedule(item: T, delayMs: number): Timer {
    const at = this.#clock.now() + delayMs;
    let batch = this.#batches.get(at);
    if (!batch) {
      const items = new Set<T>();
      const timer = this.#clock.setTimer(delayMs, () => {
        this.#batches.delete(at);
        return items.size ? this.#fire([...items]) : undefined;
      });
      batch = { items, timer };
      this.#batches.set(at, batch);
    }
    const { items } = batch;
    items.add(item);
    return {
      cancel: () => {
        if (!items.delete(item) || items.size > 0) return;
        const current = this.#batches.get(at);
        if (current?.items === items) {
          current.timer.cancel();
          this.#batches.delete(at);
        }
      },
    };
  }

  /** Cancels every pending batch. */
  cancelAll(): void {
    for (const b of this.#batches.values()) b.timer.cancel();
    this.#batches.clear();
  }
}
