/**
 * The holding of a lease, the same over every store: wait for it, renew it, know when it is lost, give it up.
 * A store offers three atomic steps on one key (take, renew, release), each naming the caller by a random token,
 * so that only the holder can renew or release it.
 */
import { TIMED_OUT, withDeadline } from '../internal/deadline.js';
import type { Lease } from '../client/event-stream.js';
import { realTimers, sleep } from '../client/wait.js';

/**
 * The time a lease follows: `now()` in ms and one-shot timers. The reference's clock (`ref.clock`, or a
 * `ManualClock`) fits, so a test can move leases with the rest of the service.
 */
export interface LeaseClock {
  now(): number;
  setTimer(delayMs: number, fn: () => void): { cancel(): void };
}

/** Real time: `performance.now()` (monotonic) and `setTimeout`. */
export const realClock: LeaseClock = { now: () => performance.now(), setTimer: realTimers.setTimer };

/** What a lease needs from its store: three atomic steps over one key. */
export interface LeaseStore {
  /** Takes the lease for `ttlMs` if nobody holds it: `true`, or else the ms until the holder's lease runs out. */
  take(token: string, ttlMs: number): Promise<true | number>;
  /** Extends the lease to `ttlMs` from now if `token` still holds it; false when it does not. */
  renew(token: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up if `token` holds it (and does nothing otherwise). */
  release(token: string): Promise<unknown>;
}

/** How often a hold renews, and for how long a secured step stands: a third and four fifths of `ttlMs`. */
export function holdTimes(ttlMs: number): { step: number; life: number } {
  return { step: Math.floor(ttlMs / 3), life: ttlMs - Math.floor(ttlMs / 5) };
}

/** A lease being held: `lost` aborts when it is lost; `held()` also checks the deadline on the clock itself. */
export interface Hold {
  readonly lost: AbortSignal;
  /** Whether the hold still stands, checked on the clock now (a timer may be late after a pause). */
  held(): boolean;
  /** Stops renewing (the lease was released or marked done): `lost` aborts with `reason`. */
  end(reason?: unknown): void;
}

/**
 * Keeps a lease renewed every third of `ttlMs` through `renew`, from the moment it was secured by a step sent at
 * `sentAt`. The hold is lost (renewals stop, `lost` aborts with an Error saying why) when a renewal is refused or
 * fails, or when four fifths of `ttlMs` have passed since the last step that secured it was sent: the store keeps
 * the lease at least `ttlMs` from then, so the holder hears of the loss a fifth of the lease time before anyone
 * else can take it. All on `clock`, which is monotonic in real time (`performance.now()`).
 */
export function holdLease(
  renew: () => Promise<boolean>,
  ttlMs: number,
  sentAt: number,
  clock: LeaseClock,
  report: (error: unknown) => void = () => {},
): Hold {
  const { step, life } = holdTimes(ttlMs);
  const lost = new AbortController();
  let until = sentAt + life;
  const lose = (reason: unknown) => {
    if (lost.signal.aborted) return;
    deadline.cancel();
    renewal?.cancel();
    lost.abort(reason);
  };
  const expired = () =>
    new Error(`psp-sdk/replicas: lease not confirmed within ${life} ms (four fifths of ${ttlMs})`);
  const arm = () => clock.setTimer(Math.max(0, until - clock.now()), () => lose(expired()));
  let deadline = arm();
  let renewal: ReturnType<LeaseClock['setTimer']> | undefined;
  const tick = async () => {
    const sent = clock.now();
    let ok = false;
    let failure: unknown;
    try {
      ok = await renew();
    } catch (error) {
      failure = error;
      report(error);
    }
    if (lost.signal.aborted) return;
    if (!ok)
      return lose(
        failure === undefined
          ? new Error('psp-sdk/replicas: lease renewal refused (it ran out, or another holder took it)')
          : new Error('psp-sdk/replicas: lease renewal failed', { cause: failure }),
      );
    // Secured from the moment the renewal was sent (the store counts from when it ran, which is later).
    until = sent + life;
    deadline.cancel();
    deadline = arm();
    renewal = clock.setTimer(step, () => void tick());
  };
  renewal = clock.setTimer(step, () => void tick());
  return {
    lost: lost.signal,
    held() {
      if (!lost.signal.aborted && clock.now() >= until) lose(expired());
      return !lost.signal.aborted;
    },
    end: (reason) => lose(reason ?? new Error('psp-sdk/replicas: lease ended')),
  };
}

/**
 * A {@link Lease} over `store`. The holder renews it every third of `ttlMs` and loses it as {@link holdLease}
 * says. A waiter tries again every third of `ttlMs`, or just after the holder's lease would run out when the
 * store says so and that is sooner, but never sooner than 50 ms (a store that keeps saying "1 ms left" must not
 * turn a waiter into a loop of hundreds of steps a second).
 */
export function leaseOver(
  store: LeaseStore,
  ttlMs: number,
  onError?: (error: unknown) => void,
  clock: LeaseClock = realClock,
): Lease {
  const { step, life } = holdTimes(ttlMs);
  const floor = Math.min(step, 50);
  const report = (error: unknown) => {
    try {
      onError?.(error);
    } catch {
      // The app's callback must not break the lease.
    }
  };
  const letGo = (token: string) => void store.release(token).catch(report);

  // One try with a fresh token: the hold, or how long to wait before the next try.
  async function attempt(signal: AbortSignal): Promise<{ readonly lost: AbortSignal } | number> {
    const token = crypto.randomUUID();
    const sentAt = clock.now();
    // A store that does not answer must not hold up close(): stop waiting for it when the signal aborts (and
    // give back what it grants later).
    const taking = store.take(token, ttlMs).catch((error: unknown) => {
      report(error);
      return false as const;
    });
    const taken = await withDeadline(taking, Number.POSITIVE_INFINITY, signal);
    if (taken === TIMED_OUT) {
      void taking.then((late) => late === true && letGo(token));
      return step;
    }
    if (taken !== true)
      return typeof taken === 'number' && taken >= 0 ? Math.max(floor, Math.min(step, taken + 1)) : step;
    if (clock.now() - sentAt >= life || signal.aborted) {
      // Taken too late to be of use, or no longer wanted.
      letGo(token);
      return step;
    }
    const hold = holdLease(() => store.renew(token, ttlMs), ttlMs, sentAt, clock, report);
    // Lost: stop at once and let the key run out (it may stay ours for the margin in which the stream closes).
    // Ended by the signal: the stream has been closed, so release the key and a successor starts now.
    const onAbort = () => {
      if (hold.lost.aborted) return;
      hold.end();
      letGo(token);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    hold.lost.addEventListener('abort', () => signal.removeEventListener('abort', onAbort), { once: true });
    return { lost: hold.lost };
  }

  return {
    async acquire(signal) {
      while (!signal.aborted) {
        const got = await attempt(signal);
        if (typeof got !== 'number') return got;
        // The SDK's one abortable sleep, on the lease's clock.
        await sleep(got, signal, clock);
      }
      return undefined;
    },
  };
}
