import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  apiError,
  client,
  createPaymentResponse,
  json,
  PAYMENT_ID,
  payment,
  refund,
  SIGNING_SECRET,
  stubFetch,
} from './helpers.js';

const expected = (bytes: Uint8Array | string) =>
  `sha256=${createHmac('sha256', SIGNING_SECRET).update(bytes).digest('hex')}`;

afterEach(() => vi.useRealTimers());

describe('X-PSP-Signature', () => {
  it('is the HMAC-SHA256 (key = the thm_ string as given) of the exact bytes on the wire', async () => {
    const { fetch, seen } = stubFetch(() => json(createPaymentResponse(), 201));
    const c = client(fetch, { signingSecret: SIGNING_SECRET });
    await c.payments.create({
      amount: 1000,
      description: 'Кофемашина «Эспрессо» ☕',
      metadata: { note: 'line\nbreak "quoted" \\ slash' },
    });
    const sent = seen[0];
    expect(sent?.body).toContain('Кофемашина');
    expect(sent?.headers['x-psp-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(sent?.headers['x-psp-signature']).toBe(expected(sent?.bytes ?? new Uint8Array()));
  });

  it('signs the empty string for a GET and for the body-less cancel', async () => {
    const { fetch, seen } = stubFetch((req) =>
      req.method === 'GET' ? json(payment()) : json({ status: 'cancelled' }),
    );
    const c = client(fetch, { signingSecret: SIGNING_SECRET });
    await c.payments.get(PAYMENT_ID);
    await c.payments.cancel(PAYMENT_ID);
    expect(seen.map((s) => s.bytes.length)).toEqual([0, 0]);
    expect(seen[0]?.headers['x-psp-signature']).toBe(expected(''));
    expect(seen[1]?.headers['x-psp-signature']).toBe(expected(''));
  });

  it('signs the refund body, including the default `{}`', async () => {
    const { fetch, seen } = stubFetch(() => json(refund(), 201));
    const c = client(fetch, { signingSecret: SIGNING_SECRET });
    await c.payments.refund(PAYMENT_ID);
    await c.payments.refund(PAYMENT_ID, { amount: 500, reason: 'возврат' });
    expect(seen[0]?.body).toBe('{}');
    for (const s of seen) expect(s.headers['x-psp-signature']).toBe(expected(s.bytes));
  });

  it('is present and correct on every retry attempt', async () => {
    vi.useFakeTimers();
    const { fetch, seen } = stubFetch((_, n) =>
      n < 3 ? apiError(502, 'x') : json(createPaymentResponse(), 201),
    );
    const c = client(fetch, { signingSecret: SIGNING_SECRET });
    const p = c.payments.create({ amount: 77, order_id: 'Ж-1' }).then(
      () => 'ok',
      () => 'fail',
    );
    await vi.runAllTimersAsync();
    expect(await p).toBe('ok');
    expect(seen).toHaveLength(3);
    for (const s of seen) expect(s.headers['x-psp-signature']).toBe(expected(s.bytes));
  });

  it('is absent without a signing secret; auth is always the bearer key', async () => {
    const { fetch, seen } = stubFetch(() => json(payment()));
    await client(fetch).payments.get(PAYMENT_ID);
    expect(seen[0]?.headers['x-psp-signature']).toBeUndefined();
    expect(seen[0]?.headers.authorization).toMatch(/^Bearer sk_test_ab12cd_/);
  });

  it('a different secret gives a different signature (the check can fail)', async () => {
    const { fetch, seen } = stubFetch(() => json(payment()));
    await client(fetch, { signingSecret: 'thm_other' }).payments.get(PAYMENT_ID);
    expect(seen[0]?.headers['x-psp-signature']).not.toBe(expected(''));
  });
});
