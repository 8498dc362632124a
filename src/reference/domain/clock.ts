/**
 * The one clock every timed rule of the reference follows: link expiry, webhook retry delays, SSE heartbeats,
 * rate-limit windows, webhook v2 timestamps and `created_at` values. Network deadlines are real time instead.
 */
export interface Clock {
  readonly mode: 'real' | 'manual';
  /** Milliseconds since the epoch on the service clock. */
  now(): number;
  /** Runs `fn` once `delayMs` of service-clock time has passed. */
  setTimer(delayMs: number, fn: TimerCallback): Timer;
  /** Cancels every pending timer (the service is shutting down). */
  dispose(): void;
}

export type TimerCallback = () => void | Promise<void>;

export interface Timer {
  cancel(): void;
}

/** The wall clock, with timers that never keep a process alive on their own. */
export class RealClock implements Clock {
  readonly mode = 'real' as const;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();

  now(): number {
    return Date.now();
  }

  setTimer(delayMs: number, fn: TimerCallback): Timer {
    // setTimeout overflows past 2^31-1 ms (~24.8 days): chain waits for longer delays (48 h webhook retries).
    const MAX = 2_147_483_647;
    let handle: ReturnType<typeof setTimeout>;
    const arm = (remaining: number) => {
      handle = setTimeout(
        () => {
          this.#timers.delete(handle);
          if (remaining > MAX) arm(remaining - MAX);
          else
            void Promise.resolve()
              .then(fn)
              .catch(() => {});
        },
        Math.min(Math.max(0, remaining), MAX),
      );
      (handle as { unref?: () => void }).unref?.();
      this.#timers.add(handle);
    };
    arm(delayMs);
    return {
      cancel: () => {
        clearTimeout(handle);
        this.#timers.delete(handle);
      },
    };
  }

  dispose(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}

interface Pending {
  at: number;
  seq: number;
  fn: TimerCallback;
  cancelled: boolean;
}

/**
 * A clock that stands still until `advance` moves it. Due timers fire in order of due time (then of creation),
 * each seeing `now()` equal to its own due time; timers they set that fall inside the advance fire too.
 */
export class ManualClock implements Clock {
  readonly mode = 'manual' as const;
  #now: number;
  #seq = 0;
  #pending: Pending[] = [];
  #queue: Promise<unknown> = Promise.resolve();

  constructor(start: number | Date = Date.now()) {
    this.#now = typeof start === 'number' ? start : start.getTime();
  }

  now(): number {
    return this.#now;
  }

  setTimer(delayMs: number, fn: TimerCallback): Timer {
    const p: Pending = { at: this.#now + Math.max(0, delayMs), seq: this.#seq++, fn, cancelled: false };
    this.#pending.push(p);
    return {
      cancel: () => {
        p.cancelled = true;
      },
    };
  }

  /** Service-clock time of the next pending timer, if any. */
  nextDue(): number | undefined {
    let best: number | undefined;
    for (const p of this.#pending) if (!p.cancelled && (best === undefined || p.at < best)) best = p.at;
    return best;
  }

  /**
   * Moves the clock forward by `ms`, firing due timers in order and awaiting each (a webhook delivery completes
   * before the next timer fires). Concurrent calls queue behind each other.
   */
  advance(ms: number): Promise<number> {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('advance takes a finite, non-negative duration');
    const run = async () => {
      const target = this.#now + ms;
      for (;;) {
        this.#pending = this.#pending.filter((p) => !p.cancelled);
        let next: Pending | undefined;
        for (const p of this.#pending) {
          if (p.at <= target && (!next || p.at < next.at || (p.at === next.at && p.seq < next.seq))) next = p;
        }
        if (!next) break;
        this.#pending.splice(this.#pending.indexOf(next), 1);
        this.#now = Math.max(this.#now, next.at);
        try {
          await next.fn();
        } catch {
          // A failing timer must not stop the clock; the owner of the timer logs its own failures.
        }
      }
      this.#now = target;
      return this.#now;
    };
    const result = this.#queue.then(run, run);
    this.#queue = result.catch(() => {});
    return result;
  }

  dispose(): void {
    this.#pending = [];
  }
}
