import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PspClient, RateLimitError } from '../../src/index.js';

/**
 * A 429 storm on a fake clock: 50 concurrent calls, each answered 429 with a random Retry-After (1 to 5 s) a
 * random number of times before a 201. The client must never send a retry before the Retry-After it was given
 * has elapsed, and must give up at once with RateLimitError when the wait would outlast its deadline.
 */

const payment = {
  id: '3f1c6a0e-8b7d-4c2e-9a51-6d0b2f4e8c17',
  merchant_id: '9b2e4f6a-1c3d-4e5f-8a7b-0c1d2e3f4a5b',
  terminal_id: '7c8d9e0f-1a2b-4c3d-8e4f-5a6b7c8d9e0f',
  amount: 1000,
  amount_refunded: 0,
  currency: 'RUB',
  method: 'any',
  status: 'pending',
  created_at: '2026-11-21T00:00:00Z',
  refunds: [],
};

function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a * 1103515245 + 12345) % 2 ** 31;
    return a / 2 ** 31;
  };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('429 storm', () => {
  it('never retries before Retry-After has elapsed, on the clock', async () => {
    const random = rng(7);
    // Per idempotency key: how many 429s are left, and when the last 429 allows the next attempt.
    const state = new Map<string, { left: number; notBefore: number; sends: number[] }>();
    const violations: string[] = [];
    let answered429 = 0;

    const fetch = vi.fn(async (input: Request | string | URL, init?: RequestInit) => {
      const req = input instanceof Request ? input : new Request(input, init);
      const key = req.headers.get('idempotency-key')!;
      const now = Date.now();
      let s = state.get(key);
      if (!s) {
        s = { left: 1 + Math.floor(random() * 4), notBefore: 0, sends: [] };
        state.set(key, s);
      }
      s.sends.push(now);
      if (now < s.notBefore) violations.push(`${key} retried ${s.notBefore - now} ms early`);
      if (s.left > 0) {
        s.left--;
        const retryAfter = 1 + Math.floor(random() * 5);
        s.notBefore = now + retryAfter * 1000;
        answered429++;
        return new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }), {
          status: 429,
          headers: { 'content-type': 'application/json', 'retry-after': String(retryAfter) },
        });
      }
      return new Response(
        JSON.stringify({ payment, payment_url: 'http://x/pay/1', mode: 'test', idempotent: false }),
        {
          status: 201,
          headers: { 'content-type': 'application/json' },
        },
      );
    });

    const client = new PspClient({
      apiKey: 'sk_test_abcdef_storm-secret-value',
      baseUrl: 'http://psp.test',
      fetch,
      maxRetries: 5,
      timeout: 120_000,
    });
    let settled = 0;
    const calls = Array.from({ length: 50 }, (_, i) =>
      client.payments
        .create({ amount: 1000 + i })
        .withResponse()
        .finally(() => {
          settled++;
        }),
    );
    const all = Promise.all(calls);
    // Walk the fake clock in 100 ms steps, so each retry lands at the moment the client chose, until all settle.
    for (let t = 0; t < 120_000 && settled < 50; t += 100) await vi.advanceTimersByTimeAsync(100);
    const results = await all;
    console.log(
      `[storm] calls=50 answered429=${answered429} sends=${fetch.mock.calls.length} early-retries=${violations.length}`,
    );
    expect(violations).toEqual([]);
    expect(results.every((r) => r.response.status === 201)).toBe(true);
    expect(fetch.mock.calls.length).toBe(50 + answered429);
  });

  it('gives up at once with RateLimitError when the wait would outlast its deadline', async () => {
    const fetch = vi.fn(
      async () =>
        new Response(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }), {
          status: 429,
          headers: { 'content-type': 'application/json', 'retry-after': '30' },
        }),
    );
    const client = new PspClient({
      apiKey: 'sk_test_abcdef_storm-secret-value',
      baseUrl: 'http://psp.test',
      fetch,
      timeout: 10_000,
    });
    const started = Date.now();
    const err = await client.payments.get(payment.id).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RateLimitError);
    expect((err as RateLimitError).retryAfter).toBe(30);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(Date.now() - started).toBe(0);
  });
});
