import { HTTPError, TimeoutError } from 'ky';
import { describe, expect, it } from 'vitest';
import { PspResponseError } from '../../src/client/errors.js';
import { type AttemptOutcome, outcomeOf, type RetryInput, retryDecision } from '../../src/client/retry.js';

// The retry policy as one pure function, read as a table: the client's suites (retry*.test.ts) pin the same
// rules end to end through ky.

const base: RetryInput = {
  attempt: 1,
  maxRetries: 2,
  safe: true,
  outcome: { status: 503 },
  timeout: 30_000,
  maxRetryDelay: 60_000,
  random: () => 0.5,
};
const at = (over: Partial<RetryInput>) => retryDecision({ ...base, ...over });
const no = { retry: false } as const;
const waits = (ms: number) => ({ retry: true, delayMs: ms }) as const;

describe('retryDecision', () => {
  it.each<[string, Partial<RetryInput>, ReturnType<typeof retryDecision>]>([
    ['a 503 on the first attempt: half of 300 ms', {}, waits(150)],
    ['the second attempt: half of 600 ms', { attempt: 2 }, waits(300)],
    ['past maxRetries', { attempt: 3 }, no],
    ['maxRetries 0', { maxRetries: 0 }, no],
    ['a call not safe to repeat', { safe: false }, no],
    ['a timeout', { outcome: { failure: 'timeout' } }, waits(150)],
    ['a network failure', { outcome: { failure: 'network' } }, waits(150)],
    ['our own refusal or the caller abort', { outcome: { failure: 'final' } }, no],
    ['408', { outcome: { status: 408 } }, waits(150)],
    ['500', { outcome: { status: 500 } }, waits(150)],
    ['501 is final', { outcome: { status: 501 } }, no],
    ['502', { outcome: { status: 502 } }, waits(150)],
    ['504', { outcome: { status: 504 } }, waits(150)],
    ['599, above the usual list', { outcome: { status: 599 } }, waits(150)],
    ['413 is final', { outcome: { status: 413, retryAfter: 1000 } }, no],
    ['409 is final', { outcome: { status: 409 } }, no],
    ['a readable Retry-After is the wait', { outcome: { status: 503, retryAfter: 2000 } }, waits(2000)],
    ['Retry-After 0 retries at once', { outcome: { status: 429, retryAfter: 0 } }, waits(0)],
    ['capped by maxRetryDelay', { outcome: { status: 503, retryAfter: 90_000 } }, waits(60_000)],
    ['backoff capped too', { attempt: 2, maxRetryDelay: 100 }, waits(100)],
    [
      'a 429 asking longer than the timeout: answered now',
      { outcome: { status: 429, retryAfter: 30_001 } },
      no,
    ],
    [
      'a 429 asking exactly the timeout waits',
      { outcome: { status: 429, retryAfter: 30_000 } },
      waits(30_000),
    ],
    [
      'a 503 asking longer than the timeout waits (capped)',
      { outcome: { status: 503, retryAfter: 40_000 } },
      waits(40_000),
    ],
  ])('%s', (_name, over, expected) => {
    expect(at(over)).toEqual(expected);
  });

  it('full jitter spans [0, 300 x 2^(n-1))', () => {
    expect(at({ random: () => 0 })).toEqual(waits(0));
    expect(at({ attempt: 2, random: () => 0.999 })).toEqual(waits(0.999 * 600));
  });
});

describe('outcomeOf', () => {
  const request = new Request('https://psp.example/api/v1/public/banks/sbp');
  const http = (status: number, headers: Record<string, string> = {}) =>
    new HTTPError(new Response(null, { status, headers }), request, {} as never);
  it.each<[string, unknown, AttemptOutcome]>([
    ['a timeout', new TimeoutError(request), { failure: 'timeout' }],
    ['our own error', new PspResponseError('redirected', 302), { failure: 'final' }],
    ['a fetch failure', new TypeError('fetch failed'), { failure: 'network' }],
    ['a 500', http(500, { 'retry-after': '3' }), { status: 500 }],
    ['a 503 with Retry-After', http(503, { 'retry-after': '3' }), { status: 503, retryAfter: 3000 }],
    [
      'a 429 with an unreadable one',
      http(429, { 'retry-after': 'soon' }),
      { status: 429, retryAfter: undefined },
    ],
  ])('%s', (_name, error, expected) => {
    expect(outcomeOf(error)).toEqual(expected);
  });
});
