import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimitError } from '../../src/index.js';
import { apiError, client, json, PAYMENT_ID, payment, stubFetch } from './helpers.js';

// Issue 13.6: Retry-After had two readers (ky's and parseRetryAfter) that disagreed. Now one parser decides, and
// what it cannot read counts as absent: the ordinary full-jitter backoff applies (Math.random fixed at 0.5, so
// the first wait is 150 ms and the second 300 ms exactly).

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(new Date('2026-05-06T10:00:00.000Z'));
  vi.spyOn(Math, 'random').mockReturnValue(0.5);
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

/** The gaps in ms between the attempts of one `payments.get` whose answers are `answers` then a 200. */
async function gaps(answers: Response[], options = {}, timeout?: number) {
  const times: number[] = [];
  const { fetch } = stubFetch((_, n) => {
    times.push(Date.now());
    return answers[n - 1] ?? json(payment());
  });
  const p = settle(client(fetch, options).payments.get(PAYMENT_ID, timeout ? { timeout } : {}));
  await vi.runAllTimersAsync();
  const r = await p;
  return { r, gaps: times.slice(1).map((t, i) => t - (times[i] as number)) };
}

describe('Retry-After: one parser, nonsense is absent', () => {
  it.each(['-5', 'garbage', 'NaN', '0x10', '1e3', '1.5', '+3', '', 'Mon 5'])(
    '429 with Retry-After %j waits the backoff (150 ms, 300 ms), not 0 and not maxRetryDelay',
    async (value) => {
      const busy = () => apiError(429, 'rate_limited', 'slow', { 'retry-after': value });
      const { r, gaps: g } = await gaps([busy(), busy()]);
      expect(r.ok).toBe(true);
      expect(g).toEqual([150, 300]);
    },
  );

  it.each(['-5', 'garbage', '1e3'])('503 with Retry-After %j waits the backoff too', async (value) => {
    const { gaps: g } = await gaps([apiError(503, 'busy', 'busy', { 'retry-after': value })]);
    expect(g).toEqual([150]);
  });

  it('only Retry-After counts: RateLimit-Reset or X-RateLimit-Reset alone do not set the wait', async () => {
    const { gaps: g } = await gaps([
      apiError(429, 'rate_limited', 'slow', { 'ratelimit-reset': '30' }),
      apiError(429, 'rate_limited', 'slow', { 'x-ratelimit-reset': '40' }),
    ]);
    expect(g).toEqual([150, 300]);
  });

  it('a readable value is waited exactly, without jitter, in each HTTP-date form', async () => {
    const { gaps: g } = await gaps(
      [
        apiError(429, 'rate_limited', 'slow', { 'retry-after': '2' }),
        apiError(429, 'rate_limited', 'slow', { 'retry-after': 'Wed, 06 May 2026 10:00:07 GMT' }),
        apiError(429, 'rate_limited', 'slow', { 'retry-after': 'Wednesday, 06-May-26 10:00:12 GMT' }),
        apiError(429, 'rate_limited', 'slow', { 'retry-after': 'Wed May  6 10:00:13 2026' }),
      ],
      { maxRetries: 4 },
    );
    expect(g).toEqual([2_000, 5_000, 5_000, 1_000]);
  });

  it('`1000` (seconds) outlasting the call timeout fails fast; `1e3` is not a number of seconds', async () => {
    const fast = await gaps([apiError(429, 'rate_limited', 'slow', { 'retry-after': '1000' })], {}, 10_000);
    expect(fast.gaps).toEqual([]);
    expect(!fast.r.ok && fast.r.error).toBeInstanceOf(RateLimitError);
    expect((fast.r as { error: RateLimitError }).error.retryAfter).toBe(1000);
    const junk = await gaps([apiError(429, 'rate_limited', 'slow', { 'retry-after': '1e3' })], {}, 10_000);
    expect(junk.r.ok).toBe(true);
    expect(junk.gaps).toEqual([150]);
  });

  it('RateLimitError.retryAfter is absent for a value the parser refuses', async () => {
    const { r } = await gaps(
      [0, 1, 2].map(() => apiError(429, 'rate_limited', 'slow', { 'retry-after': '-5' })),
    );
    expect(!r.ok && r.error).toBeInstanceOf(RateLimitError);
    expect((r as { error: RateLimitError }).error.retryAfter).toBeUndefined();
  });
});
