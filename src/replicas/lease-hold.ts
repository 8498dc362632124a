/**
 * The holding of a lease, the same over every store: wait for it, renew it, know when it is lost, give it up.
 * A store offers three atomic steps on one key (take, renew, release), each naming the caller by a random token,
 * so that only the holder can renew or release it.
 */
import type { Lease } from '../client/event-stream.js';

/**
 * The time a lease follows: `now()` in ms and one-shot timers. The reference's clock (`ref.clock`, or a
 * `ManualClock`) fits, so a test can move leases with the rest of the service.
 */
export interface LeaseClock {
  now(): number;
  setTimer(delayMs: number, fn: () => void): { cancel(): void };
}

/** Real time: `performance.now()` (monotonic) and `setTimeout`. */
export const realClock: LeaseClock = {
  now: () => performance.now(),
  setTimer(delayMs, fn) {
    const handle = setTimeout(fn, delayMs);
    return { cancel: () => clearTimeout(handle) };
  },
};

/** What a lease needs from its store: three atomic steps over one key. */
export interface LeaseStore {
  /** Takes the lease for `ttlMs` if nobody holds it: `true`, or else the ms until the holder's lease runs out. */
  take(token: string, ttlMs: number): Promise<true | number>;
  /** Extends the lease to `ttlMs` from now if `token` still holds it; false when it does not. */
  renew(token: string, ttlMs: number): Promise<boolean>;
  /** Gives the lease up if `token` holds it (and does nothing otherwise). */
  release(token: string): Promise<unknown>;
}

/**
 * A {@link Lease} over `store`. The holder renews it every third of `ttlMs`. Its hold is lost (renewals stop,
 * `lost` aborts) when a renewal is refused or fails, or when four fifths of `ttlMs` have passed since the last
 * step that secured it was sent: the store keeps the lease at least `ttlMs` from then, so the holder has a fifth
 * of the lease time to close its stream before anyone else can take the lease. A waiter tries again every third
 * of `ttlMs`, or just after the holder's lease would run out when the store says so and that is sooner.
 */
export function leaseOver(
  store: LeaseStore,
  ttlMs: number,
  onError?: (error: unknown) => void,
  clock: LeaseClock = realClock,
): Lease {
  const step = Math.floor(ttlMs / 3);
  const life = ttlMs - Math.floor(ttlMs / 5);
  const report = (error: unknown) => {
    try {
      onError?.(error);
    } catch {
      // The app's callback must not break the lease.
    }
  };
  const letGo = (token: string) => void store.release(token).catch(report);
  type Timer = ReturnType<LeaseClock['setTimer']>;
  const wait = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        timer.cancel();
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = clock.setTimer(ms, done);
      signal.addEventListener('abort', done, { once: true });
    });

  // One try with a fresh token: the hold, or how long to wait before the next try.
  async function attempt(signal: AbortSignal): Promise<{ readonly lost: AbortSignal } | number> {
    const token = crypto.randomUUID();
    const lost = new AbortController();
    let deadline: Timer | undefined;
    let renewal: Timer | undefined;
    // Lost: stop at once and let the key run out (it may stay ours for the margin in which the stream closes).
    // Ended by the signal: the stream has been closed, so release the key and a successor starts now.
    const stop = (release: boolean) => {
      if (lost.signal.aborted) return;
      deadline?.cancel();
      renewal?.cancel();
      signal.removeEventListener('abort', onAbort);
      lost.abort();
      if (release) letGo(token);
    };
    const onAbort = () => stop(true);
    // One step that secures the lease: on success its deadline, counted from before it was sent, stands.
    const secure = async (command: () => Promise<boolean | number>) => {
      const next = clock.setTimer(life, () => stop(false));
      let result: boolean | number = false;
      try {
        result = await command();
      } catch (error) {
        report(error);
      }
      if (result === true && !lost.signal.aborted) {
        deadline?.cancel();
        deadline = next;
      } else next.cancel();
      return result;
    };
    const renew = async () => {
      if ((await secure(() => store.renew(token, ttlMs))) === true && !lost.signal.aborted)
        renewal = clock.setTimer(step, () => void renew());
      else stop(false);
    };

    // A store that does not answer must not hold up close(): stop waiting for it when the signal aborts (and
    // give back what it grants later).
    const taking = secure(() => store.take(token, ttlMs));
    let giveUp: () => void = () => {};
    const taken = await Promise.race([
      taking,
      new Promise<'aborted'>((resolve) => {
        giveUp = () => resolve('aborted');
        signal.addEventListener('abort', giveUp, { once: true });
      }),
    ]);
    signal.removeEventListener('abort', giveUp);
    if (taken === 'aborted') {
      stop(false);
      void taking.then((late) => late === true && letGo(token));
      return step;
    }
    if (taken !== true) return typeof taken === 'number' && taken >= 0 ? Math.min(step, taken + 1) : step;
    if (lost.signal.aborted || signal.aborted) {
      // Taken too late to be of use, or no longer wanted.
      stop(false);
      letGo(token);
      return step;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    renewal = clock.setTimer(step, () => void renew());
    return { lost: lost.signal };
  }

  return {
    async acquire(signal) {
      while (!signal.aborted) {
        const got = await attempt(signal);
        if (typeof got !== 'number') return got;
        await wait(got, signal);
      }
      return undefined;
    },
  };
}
