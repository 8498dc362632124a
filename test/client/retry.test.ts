import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BadRequestError,
  InternalServerError,
  NotFoundError,
  PspAbortError,
  PspConnectionError,
  RateLimitError,
} from '../../src/index.js';
import {
  apiError,
  client,
  connectionRefused,
  createPaymentResponse,
  json,
  PAYMENT_ID,
  payment,
  stubFetch,
} from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2026-05-06T10:00:00.000Z'));
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

const settle = <T>(p: PromiseLike<T>) =>
  Promise.resolve(p).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

describe('Idempotency-Key across retries', () => {
  it('is byte-identical on all 3 attempts of one create and exposed on the result', async () => {
    const { fetch, seen } = stubFetch((_, n) =>
      n < 3 ? apiError(503, 'unavailable') : json(createPaymentResponse(), 201),
    );
    const p = settle(client(fetch).payments.create({ amount: 1000 }).withResponse());
    await vi.runAllTimersAsync();
    const r = await p;
    expect(r.ok).toBe(true);
    expect(seen).toHaveLength(3);
    const keys = seen.map((s) => s.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(keys).size).toBe(1);
    expect(new Set(seen.map((s) => s.body)).size).toBe(1);
    if (r.ok) {
      expect(r.value.idempotencyKey).toBe(keys[0]);
      expect(r.value.attempts).toBe(3);
      expect(Object.keys(r.value.data)).not.toContain('idempotencyKey');
    }
  });

  it('a fresh key per call, the caller key when given, and the key on the final error', async () => {
    const { fetch, seen } = stubFetch(() => apiError(500, 'boom'));
    const c = client(fetch, { maxRetries: 1 });
    const a = settle(c.payouts.create({ amount: 1, phone: '+79001234567', bank_id: '100000000111' }));
    const b = settle(c.payments.refund(PAYMENT_ID, { amount: 5 }, { idempotencyKey: 'refund-order-77' }));
    await vi.runAllTimersAsync();
    const [ra, rb] = await Promise.all([a, b]);
    expect(seen).toHaveLength(4);
    const payoutKeys = seen
      .filter((s) => s.url.endsWith('/payouts'))
      .map((s) => s.headers['idempotency-key']);
    expect(new Set(payoutKeys).size).toBe(1);
    expect(seen.filter((s) => s.url.endsWith('/refund')).map((s) => s.headers['idempotency-key'])).toEqual([
      'refund-order-77',
      'refund-order-77',
    ]);
    expect(!ra.ok && ra.error).toBeInstanceOf(InternalServerError);
    expect(!ra.ok && (ra.error as InternalServerError).idempotencyKey).toBe(payoutKeys[0]);
    expect(!rb.ok && (rb.error as InternalServerError).idempotencyKey).toBe('refund-order-77');
    expect(!rb.ok && (rb.error as InternalServerError).attempts).toBe(2);
  });
});

describe('429 and Retry-After', () => {
  it('waits exactly the 2 s of `Retry-After: 2` before the next attempt', async () => {
    const { fetch, seen } = stubFetch((_, n) =>
      n === 1 ? apiError(429, 'rate_limited', 'slow down', { 'retry-after': '2' }) : json(payment()),
    );
    const p = settle(client(fetch).payments.get(PAYMENT_ID));
    await vi.advanceTimersByTimeAsync(1999);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toHaveLength(2);
    const r = await p;
    expect(r.ok && r.value.id).toBe(PAYMENT_ID);
  });

  it('reads Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 5_000).toUTCString();
    const { fetch, seen } = stubFetch((_, n) =>
      n === 1 ? apiError(429, 'rate_limited', 'slow', { 'retry-after': at }) : json(payment()),
    );
    const p = settle(client(fetch).payments.get(PAYMENT_ID));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toHaveLength(2);
    expect((await p).ok).toBe(true);
  });

  it('clamps a long Retry-After to maxRetryDelay', async () => {
    const { fetch, seen } = stubFetch((_, n) =>
      n === 1 ? apiError(429, 'rate_limited', 'slow', { 'retry-after': '30' }) : json(payment()),
    );
    const p = settle(client(fetch, { maxRetryDelay: 3_000 }).payments.get(PAYMENT_ID));
    await vi.advanceTimersByTimeAsync(2_999);
    expect(seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(seen).toHaveLength(2);
    expect((await p).ok).toBe(true);
  });

  it('fails at once with retryAfter when the wait outlasts the call timeout', async () => {
    const { fetch, seen } = stubFetch(() => apiError(429, 'rate_limited', 'slow', { 'retry-after': '30' }));
    const r = await settle(client(fetch).payments.get(PAYMENT_ID, { timeout: 10_000 }));
    expect(seen).toHaveLength(1);
    expect(!r.ok && r.error).toBeInstanceOf(RateLimitError);
    const err = (r as { error: RateLimitError }).error;
    expect(err.retryAfter).toBe(30);
    expect(err.attempts).toBe(1);
    expect(err.status).toBe(429);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('fails fast on a Retry-After date too; a wait equal to the timeout is still waited', async () => {
    const far = new Date(Date.now() + 90_000).toUTCString();
    const a = stubFetch(() => apiError(429, 'rate_limited', 'slow', { 'retry-after': far }));
    const r = await settle(client(a.fetch).payments.get(PAYMENT_ID));
    expect(a.seen).toHaveLength(1);
    expect(!r.ok && (r.error as RateLimitError).retryAfter).toBe(90);
    const b = stubFetch((_, n) =>
      n === 1 ? apiError(429, 'rate_limited', 'slow', { 'retry-after': '5' }) : json(payment()),
    );
    const p = settle(client(b.fetch).payments.get(PAYMENT_ID, { timeout: 5_000 }));
    await vi.advanceTimersByTimeAsync(4_999);
    expect(b.seen).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(b.seen).toHaveLength(2);
    expect((await p).ok).toBe(true);
  });

  it('throws RateLimitError after the retries are spent', async () => {
    const { fetch, seen } = stubFetch(() => apiError(429, 'rate_limited', 'slow', { 'retry-after': '1' }));
    const p = settle(client(fetch, { maxRetries: 2 }).banks.list());
    await vi.runAllTimersAsync();
    const r = await p;
    expect(seen).toHaveLength(3);
    expect(!r.ok && (r.error as RateLimitError).retryAfter).toBe(1);
    expect(!r.ok && (r.error as RateLimitError).attempts).toBe(3);
  });
});

describe('what is retried', () => {
  it.each([408, 500, 502, 503, 504, 599])('retries HTTP %i', async (status) => {
    const { fetch, seen } = stubFetch((_, n) => (n === 1 ? apiError(status, 'x') : json(payment())));
    const p = settle(client(fetch).payments.get(PAYMENT_ID));
    await vi.runAllTimersAsync();
    expect((await p).ok).toBe(true);
    expect(seen).toHaveLength(2);
  });

  it.each([
    [400, BadRequestError],
    [404, NotFoundError],
  ])('does not retry HTTP %i', async (status, Cls) => {
    const { fetch, seen } = stubFetch(() => apiError(status, 'nope'));
    const r = await settle(client(fetch).payments.get(PAYMENT_ID));
    expect(seen).toHaveLength(1);
    expect(!r.ok && r.error).toBeInstanceOf(Cls);
  });

  it('retries connection errors, then throws PspConnectionError with the attempt count', async () => {
    const { fetch, seen } = stubFetch(() => connectionRefused());
    const p = settle(client(fetch, { maxRetries: 3 }).payments.get(PAYMENT_ID));
    await vi.runAllTimersAsync();
    const r = await p;
    expect(seen).toHaveLength(4);
    expect(!r.ok && r.error).toBeInstanceOf(PspConnectionError);
    expect(!r.ok && (r.error as PspConnectionError).attempts).toBe(4);
  });

  it('does not retry a POST that is not safe to repeat (raw request without a key)', async () => {
    const { fetch, seen } = stubFetch(() => apiError(503, 'unavailable'));
    const c = client(fetch);
    const r = await settle(c.request('POST', '/payments', { body: { amount: 1 } }));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.headers['idempotency-key']).toBeUndefined();
    expect(!r.ok && r.error).toBeInstanceOf(InternalServerError);
    const conn = stubFetch(() => connectionRefused());
    const r2 = await settle(client(conn.fetch).request('POST', '/payouts', { body: {} }));
    expect(conn.seen).toHaveLength(1);
    expect(!r2.ok && r2.error).toBeInstanceOf(PspConnectionError);
  });

  it('retries a raw POST that carries a key', async () => {
    const { fetch, seen } = stubFetch((_, n) => (n === 1 ? apiError(503, 'x') : json({ ok: 1 }, 201)));
    const p = settle(
      client(fetch).request('POST', '/payments', { body: { amount: 1 }, idempotencyKey: 'k1' }),
    );
    await vi.runAllTimersAsync();
    expect(await p).toEqual({ ok: true, value: { ok: 1 } });
    expect(seen).toHaveLength(2);
  });

  it('maxRetries: 0 per call turns retries off', async () => {
    const { fetch, seen } = stubFetch(() => apiError(500, 'x'));
    const r = await settle(client(fetch).payments.get(PAYMENT_ID, { maxRetries: 0 }));
    expect(seen).toHaveLength(1);
    expect(!r.ok && (r.error as InternalServerError).attempts).toBe(1);
  });
});

describe('backoff', () => {
  it('waits with full jitter under an exponential cap, bounded by maxRetryDelay', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const { fetch, seen } = stubFetch(() => apiError(500, 'x'));
    const times: number[] = [];
    const wrapped: typeof fetch = (input, init) => {
      times.push(Date.now());
      return fetch(input, init);
    };
    const p = settle(client(wrapped, { maxRetries: 4, maxRetryDelay: 1_500 }).payments.get(PAYMENT_ID));
    await vi.runAllTimersAsync();
    await p;
    expect(seen).toHaveLength(5);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    // Caps 300, 600, 1200, 2400 ms times 0.999, the last clamped at 1500 ms.
    expect(gaps).toEqual([299, 599, 1198, 1500]);
  });

  it('with Math.random() = 0 the retry follows at once (full jitter reaches zero)', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const { fetch, seen } = stubFetch((_, n) => (n === 1 ? apiError(500, 'x') : json(payment())));
    const p = settle(client(fetch).payments.get(PAYMENT_ID));
    await vi.advanceTimersByTimeAsync(0);
    expect(seen).toHaveLength(2);
    expect((await p).ok).toBe(true);
  });
});

describe('abortable sleep', () => {
  it('an abort during the wait ends the call at once with PspAbortError and no further attempt', async () => {
    const { fetch, seen } = stubFetch(() => apiError(429, 'rate_limited', 'slow', { 'retry-after': '20' }));
    const ac = new AbortController();
    const p = settle(client(fetch).payments.get(PAYMENT_ID, { signal: ac.signal }));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(seen).toHaveLength(1);
    ac.abort();
    const r = await p;
    expect(!r.ok && r.error).toBeInstanceOf(PspAbortError);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(seen).toHaveLength(1);
  });
});
