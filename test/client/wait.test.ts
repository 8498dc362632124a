import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { InternalServerError } from '../../src/index.js';
import { backoffDelay, sleep, worthRetrying } from '../../src/client/wait.js';
import { apiError, client, PAYMENT_ID, stubFetch } from './helpers.js';

// The SDK's one way of waiting (src/client/wait.ts): which answers are worth another attempt, how long the wait
// before it is, and the sleep that an abort ends. Calls, the event stream, waitFor and the leases all use these.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('worthRetrying', () => {
  it.each([408, 429, 500, 502, 503, 504, 520, 599])('%i is worth another attempt', (status) => {
    expect(worthRetrying(status)).toBe(true);
  });
  it.each([0, 200, 302, 400, 401, 403, 404, 409, 413, 422, 501])('%i is final', (status) => {
    expect(worthRetrying(status)).toBe(false);
  });
});

describe('501 Not Implemented is final for calls and the event stream alike', () => {
  it('a call and a stream connection each end at the first 501, with the typed error', async () => {
    const { fetch, seen } = stubFetch(() => apiError(501, 'not_implemented', 'never'));
    const c = client(fetch, { maxRetries: 3 });
    const call = await c.payments.get(PAYMENT_ID).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Before, the stream reconnected on a 501: with maxRetries 3 it gave up with a PspConnectionError after 4.
    const stream = c.events.stream({ maxRetries: 3, backoff: { initialDelayMs: 1, maxDelayMs: 1 } });
    const streamed = stream[Symbol.asyncIterator]()
      .next()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await vi.runAllTimersAsync();
    for (const err of [call, await streamed]) {
      expect(err).toBeInstanceOf(InternalServerError);
      expect((err as InternalServerError).status).toBe(501);
    }
    expect(seen.map((s) => new URL(s.url).pathname)).toEqual([
      `/api/v1/public/payments/${PAYMENT_ID}`,
      '/api/v1/public/events',
    ]);
  });
});

describe('backoffDelay', () => {
  const half = () => 0.5;
  it('full jitter: anywhere below the doubled wait, then capped', () => {
    const full = { firstMs: 300, maxMs: 1_000, jitter: 'full' } as const;
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, full, half))).toEqual([150, 300, 600, 1_000]);
    expect(backoffDelay(3, full, () => 0)).toBe(0);
  });

  it('equal jitter: in the upper half of the capped wait, rounded', () => {
    const equal = { firstMs: 1_000, maxMs: 30_000, jitter: 'equal' } as const;
    expect([1, 2, 5, 6, 7].map((n) => backoffDelay(n, equal, half))).toEqual([
      750, 1_500, 12_000, 22_500, 22_500,
    ]);
    expect(backoffDelay(1, equal, () => 0)).toBe(500);
    expect(backoffDelay(1, equal, () => 0.999)).toBe(1_000);
  });

  it('no jitter: the doubled wait, capped, however many attempts', () => {
    const none = { firstMs: 100, maxMs: 30_000, jitter: 'none' } as const;
    expect([1, 2, 3, 9, 10_000].map((n) => backoffDelay(n, none))).toEqual([100, 200, 400, 25_600, 30_000]);
  });
});

describe('sleep', () => {
  it('resolves after the delay, not before, and leaves no timer', async () => {
    let done = false;
    const p = sleep(1_000).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(999);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await p;
    expect(done).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('an abort ends it at once, without rejecting, and leaves no timer and no listener', async () => {
    const ac = new AbortController();
    const remove = vi.spyOn(ac.signal, 'removeEventListener');
    const p = sleep(60_000, ac.signal);
    expect(vi.getTimerCount()).toBe(1);
    ac.abort(new Error('stop'));
    await expect(p).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
    await expect(sleep(60_000, ac.signal)).resolves.toBeUndefined();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("runs on the timers it is given (the leases' clock)", async () => {
    const pending: Array<() => void> = [];
    const timers = {
      setTimer: (_ms: number, fn: () => void) => {
        pending.push(fn);
        return { cancel: () => pending.splice(pending.indexOf(fn), 1) };
      },
    };
    let done = false;
    const p = sleep(5_000, undefined, timers).then(() => (done = true));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(done).toBe(false);
    pending[0]!();
    await p;
    expect(done).toBe(true);
    const ac = new AbortController();
    const q = sleep(5_000, ac.signal, timers);
    expect(pending).toHaveLength(1);
    ac.abort();
    await q;
    expect(pending).toHaveLength(0);
  });
});
