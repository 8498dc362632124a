import type { LeaseClock, LeaseStore } from './lease-hold.js';

/** The three steps of a lease over one variable of this process, on `clock`. */
export function memoryStore(clock: LeaseClock): LeaseStore {
  let held: { token: string; until: number } | undefined;
  const live = () => {
    if (held && held.until <= clock.now()) held = undefined;
    return held;
  };
  return {
    async take(token, ttlMs) {
      const now = live();
      if (now) return now.until - clock.now();
      held = { token, until: clock.now() + ttlMs };
      return true;
    },
    async renew(token, ttlMs) {
      const now = live();
      if (now?.token !== token) return false;
      now.until = clock.now() + ttlMs;
      return true;
    },
    async release(token) {
      if (live()?.token === token) held = undefined;
    },
  };
}
