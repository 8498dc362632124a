import { describe, expect, it } from 'vitest';
import { ApiPromise, NotFoundError, PspValidationError } from '../../src/index.js';
import { apiError, client, json, PAYMENT_ID, payment, stubFetch } from './helpers.js';

describe('ApiPromise', () => {
  it('awaits to the data; withResponse adds response, key, attempts and request id', async () => {
    const { fetch } = stubFetch(() => json(payment(), 200, { 'x-request-id': 'req-7' }));
    const p = client(fetch).payments.get(PAYMENT_ID);
    expect(p).toBeInstanceOf(ApiPromise);
    expect(Object.prototype.toString.call(p)).toBe('[object ApiPromise]');
    const r = await p.withResponse();
    expect(r.data.id).toBe(PAYMENT_ID);
    expect(r.response.status).toBe(200);
    expect(r.response.bodyUsed).toBe(true);
    expect(r.idempotencyKey).toBeUndefined();
    expect(r.attempts).toBe(1);
    expect(r.requestId).toBe('req-7');
    expect((await p).id).toBe(PAYMENT_ID);
  });

  it('works with Promise.all, then/catch/finally, and issues one request however often it is read', async () => {
    const { fetch, seen } = stubFetch(() => json(payment()));
    const c = client(fetch);
    const p = c.payments.get(PAYMENT_ID);
    const [a, b] = await Promise.all([p, p.then((x) => x.status)]);
    expect(a.id).toBe(PAYMENT_ID);
    expect(b).toBe('pending');
    let done = false;
    await p.finally(() => {
      done = true;
    });
    expect(done).toBe(true);
    expect(seen).toHaveLength(1);
    const failing = stubFetch(() => apiError(404, 'not_found'));
    const caught = await client(failing.fetch)
      .payments.get(PAYMENT_ID)
      .catch((e: unknown) => e);
    expect(caught).toBeInstanceOf(NotFoundError);
  });

  it('a bad argument rejects the promise (never a synchronous throw)', async () => {
    const { fetch } = stubFetch(() => json({}));
    const c = client(fetch);
    let p: PromiseLike<unknown> | undefined;
    expect(() => {
      p = c.payouts.create({ amount: 1, phone: 'x', bank_id: 'y' });
    }).not.toThrow();
    await expect(p).rejects.toBeInstanceOf(PspValidationError);
  });
});

describe('client.request (raw)', () => {
  it('sends any path under /api/v1/public with auth; GETs retry; checks method and path', async () => {
    const { fetch, seen } = stubFetch((_, n) => (n === 1 ? apiError(503, 'x') : json({ items: [] })));
    const c = client(fetch, { maxRetryDelay: 0 });
    expect(await c.request('GET', '/banks/sbp')).toEqual({ items: [] });
    expect(seen.map((s) => new URL(s.url).pathname)).toEqual([
      '/api/v1/public/banks/sbp',
      '/api/v1/public/banks/sbp',
    ]);
    expect(seen[1]?.headers.authorization).toMatch(/^Bearer sk_test_/);
    await expect(c.request('GET', 'banks/sbp')).rejects.toBeInstanceOf(PspValidationError);
    await expect(c.request('GET', '/banks?x=1')).rejects.toBeInstanceOf(PspValidationError);
    await expect(c.request('DELETE' as 'GET', '/banks/sbp')).rejects.toBeInstanceOf(PspValidationError);
    expect(seen).toHaveLength(2);
  });
});
