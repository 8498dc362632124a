import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PspApiError, PspTimeoutError } from '../../src/index.js';
import { apiError, client, json, PAYMENT_ID, payment, stubFetch } from './helpers.js';

// The retry rules as the transport states them to ky with as few keys as possible (ky re-normalises its retry
// options on every call): ky's default status list, minus 413, plus every 5xx above 504, plus timeouts.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

const settle = <T>(p: PromiseLike<T>) =>
  Promise.resolve(p).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

describe('which answers are retried', () => {
  it.each([
    [413, {}],
    [413, { 'retry-after': '1' }],
    [501, {}],
    [409, {}],
    [422, {}],
  ])('HTTP %i %j is not retried', async (status, headers) => {
    const { fetch, seen } = stubFetch(() => apiError(status, 'no', 'no', headers));
    const p = settle(client(fetch).payments.get(PAYMENT_ID));
    await vi.runAllTimersAsync();
    const r = await p;
    expect(seen).toHaveLength(1);
    expect(!r.ok && r.error).toBeInstanceOf(PspApiError);
    expect(!r.ok && (r.error as PspApiError).status).toBe(status);
  });

  it.each([505, 520, 429, 503])('HTTP %i is retried up to maxRetries', async (status) => {
    const { fetch, seen } = stubFetch(() => apiError(status, 'busy'));
    const p = settle(client(fetch, { maxRetries: 2 }).payments.get(PAYMENT_ID));
    await vi.runAllTimersAsync();
    const r = await p;
    expect(seen).toHaveLength(3);
    expect(!r.ok && (r.error as PspApiError).attempts).toBe(3);
  });

  it('a 503 with Retry-After is retried after that wait, not before', async () => {
    const { fetch, seen } = stubFetch((_, n) =>
      n === 1 ? apiError(503, 'busy', 'busy', { 'retry-after': '3' }) : json(payment()),
    );
    const p = settle(client(fetch).payments.get(PAYMENT_ID));
    await vi.advanceTimersByTimeAsync(2_999);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toHaveLength(2);
    expect((await p).ok).toBe(true);
  });

  it('a timed-out attempt is retried; the last timeout is a PspTimeoutError', async () => {
    const { fetch, seen } = stubFetch(
      (req) =>
        new Promise<Response>((_, reject) =>
          req.signal.addEventListener('abort', () => reject(req.signal.reason)),
        ),
    );
    const p = settle(client(fetch, { timeout: 1_000, maxRetries: 1 }).payments.get(PAYMENT_ID));
    await vi.runAllTimersAsync();
    const r = await p;
    expect(seen).toHaveLength(2);
    expect(!r.ok && r.error).toBeInstanceOf(PspTimeoutError);
  });
});
