import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NotPendingError, PspConnectionError } from '../../src/index.js';
import { apiError, client, connectionRefused, json, PAYMENT_ID, payment, stubFetch } from './helpers.js';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A service where the first cancel takes effect but its answer is lost on the way back. */
function lostAnswerService(finalStatus: string) {
  let status = 'pending';
  return stubFetch((req, n) => {
    if (req.method === 'GET') return json(payment({ status }));
    if (status === 'pending') {
      status = finalStatus;
      if (n === 1) connectionRefused();
    }
    return apiError(409, 'not_pending', `Payment is ${status}, not pending.`);
  });
}

describe('payments.cancel', () => {
  it('resolves to success when the retry answers 409 not_pending and the payment is cancelled', async () => {
    const { fetch, seen } = lostAnswerService('cancelled');
    const p = client(fetch).payments.cancel(PAYMENT_ID).withResponse();
    await vi.runAllTimersAsync();
    const r = await p;
    expect(r.data).toEqual({ status: 'cancelled' });
    expect(seen.map((s) => `${s.method} ${new URL(s.url).pathname}`)).toEqual([
      `POST /api/v1/public/payments/${PAYMENT_ID}/cancel`,
      `POST /api/v1/public/payments/${PAYMENT_ID}/cancel`,
      `GET /api/v1/public/payments/${PAYMENT_ID}`,
    ]);
    expect(r.attempts).toBe(3);
  });

  it('throws NotPendingError when the payment turned out otherwise (e.g. succeeded)', async () => {
    const { fetch } = lostAnswerService('succeeded');
    const p = client(fetch)
      .payments.cancel(PAYMENT_ID)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await vi.runAllTimersAsync();
    const err = await p;
    expect(err).toBeInstanceOf(NotPendingError);
    expect((err as NotPendingError).attempts).toBe(2);
  });

  it('a first-attempt not_pending is thrown as is, without reading the payment', async () => {
    const { fetch, seen } = stubFetch(() => apiError(409, 'not_pending', 'already paid'));
    await expect(client(fetch).payments.cancel(PAYMENT_ID)).rejects.toBeInstanceOf(NotPendingError);
    expect(seen).toHaveLength(1);
  });

  it('if the recovery read fails, the original NotPendingError is thrown', async () => {
    let n = 0;
    const { fetch } = stubFetch((req) => {
      n++;
      if (req.method === 'GET') connectionRefused();
      if (n === 1) return apiError(503, 'x');
      return apiError(409, 'not_pending', 'nope');
    });
    const p = client(fetch, { maxRetries: 1 })
      .payments.cancel(PAYMENT_ID)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    await vi.runAllTimersAsync();
    const err = await p;
    expect(err).toBeInstanceOf(NotPendingError);
    expect(err).not.toBeInstanceOf(PspConnectionError);
  });

  it('cancel is retried on a lost answer (it is safe to repeat) and sends no body', async () => {
    const { fetch, seen } = stubFetch((_, n) =>
      n === 1 ? connectionRefused() : json({ status: 'cancelled' }),
    );
    const p = client(fetch).payments.cancel(PAYMENT_ID);
    await vi.runAllTimersAsync();
    expect(await p).toEqual({ status: 'cancelled' });
    expect(seen).toHaveLength(2);
    expect(seen[1]?.body).toBe('');
    expect(seen[1]?.headers['idempotency-key']).toBeUndefined();
  });
});
