import type { RateLimitSetting } from './accounts.js';

interface Window {
  start: number;
  count: number;
}

/** Result of one request's admission: allowed, or refused with the whole seconds to wait. */
export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number };

/**
 * A fixed-window limiter per merchant on the service clock: at most `limit` requests in each window of
 * `window_seconds`, the window starting at the merchant's first request after the previous one ended. Under a
 * manual clock a window ends only when the clock is advanced past it.
 *
 * @example
 * const rl = new RateLimiter(() => clock.now());
 * rl.admit(merchantId, { limit: 1000, window_seconds: 1 }); // { ok: true }
 */
export class RateLimiter {
  readonly #windows = new Map<string, Window>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  admit(merchantId: string, setting: RateLimitSetting): Admission {
    const now = this.#now();
    const windowMs = setting.window_seconds * 1000;
    let w = this.#windows.get(merchantId);
    if (!w || now >= w.start + windowMs || now < w.start) {
      w = { start: now, count: 0 };
      this.#windows.set(merchantId, w);
    }
    if (w.count >= setting.limit) {
      // Rounded up and at least 1: a client that waits Retry-After seconds is never refused again for this window.
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((w.start + windowMs - now) / 1000)) };
    }
    w.count++;
    return { ok: true };
  }

  /** Forgets a merchant's window (its limit changed in the cabinet). */
  reset(merchantId: string): void {
    this.#windows.delete(merchantId);
  }
}
