/**
 * The one clock every timed rule of the reference follows: link expiry, webhook retry delays, SSE heartbeats,
 * rate-limit windows, webhook v2 timestamps and `created_at` values. Network deadlines are real time instead.
 */
export interface Clock {
  readonly mode: 'real' | 'manual';
  /**
   * Milliseconds since the epoch on the service clock. Bound to its clock, so it can be handed on as is: a webhook
   * receiver under test verifies on the service's time with `createWebhookHandler({ secret, now: ref.clock.now })`.
   */
  readonly now: () => number;
  /** Runs `fn` once `delayMs` of service-clock time has passed. */
  setTimer(delayMs: number, fn: TimerCallback): Timer;
  /**
   * Runs `fn` every `periodMs` of service-clock time until cancelled. Periods that fall due together (a manual
   * clock moved past several of them in one advance, a real clock's late timer) run `fn` once, not once each.
   */
  every(periodMs: number, fn: TimerCallback): Timer;
  /** Cancels every pending timer (the service is shutting down). */
  dispose(): void;
}

/**
 * The latest time the manual clock reaches: 9999-01-01T00:00:00.000Z. Every deadline the service sets is within a
 * year of the clock, so every time it shows keeps RFC 3339's four-digit year (past year 275760 `toISOString`
 * throws, and every answer with a time would be a 500).
 */
export const CLOCK_MAX_MS = Date.UTC(9999, 0, 1);
/** The latest time RFC 3339 can write (four-digit year): 9999-12-31T23:59:59.999Z. */
export const TIME_MAX_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export type TimerCallback = () => void | Promise<void>;

export interface Timer {
  cancel(): void;
}

/** The wall clock, with timers that never keep a process alive on their own. */
export class RealClock implements Clock {
  readonly mode = 'real' as const;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();

  readonly now = (): number => Date.now();

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
      (handle as { unref?: (() => void) | undefined }).unref?.();
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

  every(periodMs: number, fn: TimerCallback): Timer {
    // A chain of one-shot timers: a late one runs once and the next period counts from then.
    let current: Timer | undefined;
    let cancelled = false;
    const arm = () => {
      current = this.setTimer(periodMs, () => {
        if (cancelled) return;
        arm();
        return fn();
      });
    };
    arm();
    return {
      cancel: () => {
        cancelled = true;
        current?.cancel();
      },
    };
  }

  dispose(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }
}

/** An advance that would take the manual clock past {@link CLOCK_MAX_MS}; the clock stays where it was. */
export class ClockLimitError extends RangeError {
  constructor(now: number) {
    super(
      `the clock may not pass ${new Date(CLOCK_MAX_MS).toISOString()} (it is ${new Date(now).toISOString()})`,
    );
    this.name = 'ClockLimitError';
  }
}

interface Pending {
  at: number;
  seq: number;
  fn: TimerCallback;
  cancelled: boolean;
  /** The period of a repeating timer ({@link Clock.every}). */
  every?: number | undefined;
}

/**
 * A clock that stands still until `advance` moves it. Due timers fire in order of due time (then of creation),
 * each seeing `now()` equal to its own due time; timers they set that fall inside the advance fire too. A
 * repeating timer fires at most once per advance, at the last of its periods that fell due (so advancing ten
 * years with an open event stream sends one heartbeat, not twelve million).
 */
export class ManualClock implements Clock {
  readonly mode = 'manual' as const;
  #now: number;
  #seq = 0;
  #pending: Pending[] = [];
  #queue: Promise<unknown> = Promise.resolve();
  /** Bumped by {@link set}: an advance asked before it stops, so a restored time and state are what stand. */
  #epoch = 0;

  constructor(start: number | Date = Date.now()) {
    this.#now = typeof start === 'number' ? start : start.getTime();
  }

  readonly now = (): number => this.#now;

  setTimer(delayMs: number, fn: TimerCallback): Timer {
    return this.#add(Math.max(0, delayMs), fn);
  }

  every(periodMs: number, fn: TimerCallback): Timer {
    const every = Math.max(1, periodMs);
    return this.#add(every, fn, every);
  }

  #add(delayMs: number, fn: TimerCallback, every?: number): Timer {
    const p: Pending = { at: this.#now + delayMs, seq: this.#seq++, fn, cancelled: false, every };
    this.#pending.push(p);
    return {
      cancel: () => {
        p.cancelled = true;
      },
    };
  }

  /**
   * Sets the time (a restore under the manual clock takes the snapshot's); pending timers keep their delay from
   * now, so a heartbeat due in 10 s is still due in 10 s. It also ends every advance asked before it: the one
   * running stops after the timer it is awaiting (it would otherwise carry the restored state to its old target,
   * expiring what was restored), and queued ones do not run; each resolves to the time set here.
   */
  set(ms: number): void {
    this.#epoch++;
    const delta = ms - this.#now;
    for (const p of this.#pending) p.at += delta;
    this.#now = ms;
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
    const asked = this.#epoch;
    const run = async () => {
      if (this.#epoch !== asked) return this.#now;
      const target = this.#now + ms;
      // Checked when the advance runs, not when it is asked: advances queued together cannot pass the limit either.
      if (target > CLOCK_MAX_MS) throw new ClockLimitError(this.#now);
      for (;;) {
        this.#pending = this.#pending.filter((p) => !p.cancelled);
        let next: Pending | undefined;
        for (const p of this.#pending) {
          // The periods of a repeating timer that fall due in this advance collapse into its last one.
          if (p.every !== undefined && p.at <= target)
            p.at += Math.floor((target - p.at) / p.every) * p.every;
          if (p.at <= target && (!next || p.at < next.at || (p.at === next.at && p.seq < next.seq))) next = p;
        }
        if (!next) break;
        this.#now = Math.max(this.#now, next.at);
        if (next.every === undefined) this.#pending.splice(this.#pending.indexOf(next), 1);
        else {
          // Its next period is past the target, so it waits for a later advance; ordered as if set now.
          next.at += next.every;
          next.seq = this.#seq++;
        }
        try {
          await next.fn();
        } catch {
          // A failing timer must not stop the clock; the owner of the timer logs its own failures.
        }
        // The clock was set (a restore) while that timer ran: what was restored stands.
        if (this.#epoch !== asked) return this.#now;
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
