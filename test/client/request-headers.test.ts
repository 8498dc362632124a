import { createHmac } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { VERSION } from '../../src/internal/version.js';
import { PspAbortError } from '../../src/index.js';
import {
  API_KEY,
  apiError,
  client,
  createPaymentResponse,
  json,
  PAYMENT_ID,
  payment,
  SIGNING_SECRET,
  stubFetch,
} from './helpers.js';

// The transport sets every header on the Request it hands to fetch, once per attempt (not through ky's `headers`
// option, which costs a call four Headers objects). These pin the exact header set of each kind of call and of
// every retry, including the Request ky rebuilds after a timed-out attempt.

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

// Every attempt names the SDK (and the app's appInfo, when given) outside a browser.
const UA = `psp-sdk/${VERSION}`;
const hmac = (body: string) => `sha256=${createHmac('sha256', SIGNING_SECRET).update(body).digest('hex')}`;

describe('headers of each attempt', () => {
  it('a GET carries bearer auth and accept only', async () => {
    const { fetch, seen } = stubFetch(() => json(payment()));
    await client(fetch).payments.get(PAYMENT_ID);
    expect(seen[0]?.headers).toEqual({
      authorization: `Bearer ${API_KEY}`,
      accept: 'application/json',
      'user-agent': UA,
    });
  });

  it('a create carries auth, accept, JSON content-type and its Idempotency-Key; signed, the signature too', async () => {
    const { fetch, seen } = stubFetch(() => json(createPaymentResponse(), 201));
    const r = await client(fetch, { signingSecret: SIGNING_SECRET })
      .payments.create({ amount: 1000, order_id: 'A-1' })
      .withResponse();
    const body = '{"amount":1000,"order_id":"A-1"}';
    expect(seen[0]?.body).toBe(body);
    expect(seen[0]?.headers).toEqual({
      authorization: `Bearer ${API_KEY}`,
      accept: 'application/json',
      'content-type': 'application/json',
      'idempotency-key': r.idempotencyKey,
      'x-psp-signature': hmac(body),
      'user-agent': UA,
    });
  });

  it('a POST without a body (cancel) has no content-type, and a raw GET no Idempotency-Key', async () => {
    const { fetch, seen } = stubFetch((req) =>
      req.method === 'POST' ? json({ status: 'cancelled' }) : json({ items: [] }),
    );
    const c = client(fetch);
    await c.payments.cancel(PAYMENT_ID);
    await c.request('GET', '/banks/sbp');
    expect(seen[0]?.headers).toEqual({
      authorization: `Bearer ${API_KEY}`,
      accept: 'application/json',
      'user-agent': UA,
    });
    expect(seen[1]?.headers).toEqual({
      authorization: `Bearer ${API_KEY}`,
      accept: 'application/json',
      'user-agent': UA,
    });
  });

  it('every retry carries the same full header set (after a 503 and after a timed-out attempt)', async () => {
    const { fetch, seen } = stubFetch((req, n) => {
      if (n === 1) return apiError(503, 'unavailable');
      if (n === 2)
        return new Promise<Response>((_, reject) =>
          req.signal.addEventListener('abort', () => reject(req.signal.reason)),
        );
      return json(createPaymentResponse(), 201);
    });
    const p = client(fetch, { signingSecret: SIGNING_SECRET, timeout: 1_000 })
      .payments.create({ amount: 5 })
      .withResponse();
    await vi.runAllTimersAsync();
    const r = await p;
    expect(r.attempts).toBe(3);
    expect(seen).toHaveLength(3);
    const first = seen[0]?.headers;
    expect(first?.authorization).toBe(`Bearer ${API_KEY}`);
    expect(first?.['x-psp-signature']).toBe(hmac('{"amount":5}'));
    for (const s of seen) expect(s.headers).toEqual(first);
    for (const s of seen) expect(s.body).toBe('{"amount":5}');
  });

  it("the Request of a create follows the call's signals: the caller's abort reaches fetch", async () => {
    let aborted: AbortSignal | undefined;
    const { fetch, seen } = stubFetch(
      (req) =>
        new Promise<Response>((_, reject) => {
          aborted = req.signal;
          req.signal.addEventListener('abort', () => reject(req.signal.reason));
        }),
    );
    const ac = new AbortController();
    const p = client(fetch)
      .payments.create({ amount: 5 }, { signal: ac.signal })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await vi.advanceTimersByTimeAsync(10);
    expect(seen).toHaveLength(1);
    expect(aborted?.aborted).toBe(false);
    ac.abort();
    const e = await p;
    expect(e).toBeInstanceOf(PspAbortError);
    expect(aborted?.aborted).toBe(true);
  });
});
