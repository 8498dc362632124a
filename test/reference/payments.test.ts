import { afterEach, describe, expect, it } from 'vitest';
import { expectError, expectWire, setup } from './helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

describe('POST /payments', () => {
  it('creates a pending test payment with the spec fields, defaults and a payment_url', async () => {
    env = setup();
    const r = await env.call('/payments', {
      body: {
        amount: 12_345,
        order_id: 'ord-1',
        description: 'Tea',
        metadata: { a: 'b' },
        return_url: 'https://shop.example/back',
      },
    });
    expect(r.status).toBe(201);
    expectWire('CreatePaymentResponse', r.body);
    const p = r.body.payment;
    expect(p).toMatchObject({
      amount: 12_345,
      amount_refunded: 0,
      currency: 'RUB',
      method: 'any',
      status: 'pending',
      order_id: 'ord-1',
      merchant_id: env.ref.merchant_id,
      terminal_id: env.ref.terminal_id,
      metadata: { a: 'b' },
      return_url: 'https://shop.example/back',
      refunds: [],
      created_at: '2026-05-06T10:00:00.000Z',
      expires_at: '2026-05-06T10:30:00.000Z',
      captured_at: null,
      finalized_at: null,
    });
    expect(r.body.mode).toBe('test');
    expect(r.body.simulator).toBe('succeeded');
    expect(r.body.payment_url).toBe(`http://ref.test/pay/${p.id}`);
    expect(r.body.idempotent).toBeUndefined();
    expect(r.body.bank).toBeUndefined();
    expect(r.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('uses publicUrl for payment_url when given', async () => {
    env = setup({ publicUrl: 'https://pay.example.com/' });
    const r = await env.createPayment();
    expect(r.payment_url).toBe(`https://pay.example.com/pay/${r.payment.id}`);
  });

  it('accepts every method and the supported currencies', async () => {
    env = setup();
    for (const method of ['sbp', 'cards', 'tpay', 'sberpay', 'recurrent', 'any']) {
      const r = await env.createPayment({ amount: 100, method });
      expect(r.payment.method).toBe(method);
    }
    for (const currency of ['RUB', 'USD', 'EUR']) {
      expect((await env.createPayment({ amount: 100, currency })).payment.currency).toBe(currency);
    }
  });

  it.each([
    [{}, 'amount'],
    [{ amount: 0 }, 'amount: must be at least 1'],
    [{ amount: -5 }, 'amount'],
    [{ amount: 1.5 }, 'amount'],
    [{ amount: '100' }, 'amount'],
    [{ amount: 2 ** 53 }, 'amount'],
    [{ amount: 100, currency: 'rub' }, 'currency'],
    [{ amount: 100, currency: 'GBP' }, 'currency: must be one of RUB, USD, EUR'],
    [{ amount: 100, method: 'cash' }, 'method'],
    [{ amount: 100, return_url: 'not a url' }, 'return_url'],
    [{ amount: 100, return_url: 'javascript:alert(1)' }, 'return_url'],
    [{ amount: 100, webhook_url: 'ftp://x.example' }, 'webhook_url'],
    [{ amount: 100, order_id: 'x'.repeat(257) }, 'order_id'],
    [{ amount: 100, metadata: { a: 1 } }, 'metadata'],
    [{ amount: 100, metadata: 'x' }, 'metadata'],
    [{ amount: 100, surprise: true }, 'unknown field "surprise"'],
    [[{ amount: 100 }], '(body)'],
    [null, ''],
    ['just a string', ''],
  ])('refuses %j with 400 bad_request naming the field', async (body, needle) => {
    env = setup();
    const r = await env.call('/payments', { body });
    expectError(r, 400, 'bad_request');
    if (needle && needle !== '(body)') expect(r.body.error.message).toContain(needle);
    expect((await env.ref.control.getClock()).mode).toBe('manual');
  });

  it('requires a body', async () => {
    env = setup();
    expectError(await env.call('/payments', { method: 'POST' }), 400, 'bad_request');
  });
});

describe('GET /payments/{id}', () => {
  it('returns the payment as created', async () => {
    env = setup();
    const c = await env.createPayment();
    const r = await env.call(`/payments/${c.payment.id}`);
    expect(r.status).toBe(200);
    expectWire('Payment', r.body);
    expect(r.body).toEqual(c.payment);
  });

  it("is 404 for an unknown id, a malformed id, and another merchant's payment", async () => {
    env = setup();
    const c = await env.createPayment();
    expectError(await env.call('/payments/4a1f1c55-9b0b-4f43-9b7e-5d0f1f8f0a11'), 404, 'not_found');
    const bad = await env.call('/payments/not-a-uuid');
    expectError(bad, 404, 'not_found');
    expect(bad.body.error.message).toContain('UUID');
    const other = await env.ref.control.createMerchant({ name: 'Other' });
    expectError(await env.call(`/payments/${c.payment.id}`, { key: other.api_key }), 404, 'not_found');
  });

  it('hides test payments from live keys of the same merchant', async () => {
    env = setup();
    const c = await env.createPayment();
    await env.ref.control.updateMerchant(env.ref.merchant_id, { live_enabled: true });
    const live = await env.ref.control.createApiKey(env.ref.terminal_id, { mode: 'live' });
    expectError(await env.call(`/payments/${c.payment.id}`, { key: live.api_key }), 404, 'not_found');
  });
});

describe('POST /payments/{id}/cancel', () => {
  it('cancels a pending payment: 200 { status: "cancelled" }', async () => {
    env = setup();
    const c = await env.createPayment();
    const r = await env.call(`/payments/${c.payment.id}/cancel`, { method: 'POST' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'cancelled' });
    expectWire('CancelPaymentResponse', r.body);
    const g = await env.call(`/payments/${c.payment.id}`);
    expect(g.body.status).toBe('cancelled');
    expect(g.body.finalized_at).toBe('2026-05-06T10:00:00.000Z');
  });

  it('accepts an empty JSON object as the body, refuses any other body', async () => {
    env = setup();
    const a = await env.createPayment();
    expect((await env.call(`/payments/${a.payment.id}/cancel`, { body: {} })).status).toBe(200);
    const b = await env.createPayment();
    expectError(await env.call(`/payments/${b.payment.id}/cancel`, { body: { why: 1 } }), 400, 'bad_request');
    expect((await env.call(`/payments/${b.payment.id}`)).body.status).toBe('pending');
  });

  it.each(['succeeded', 'failed', 'expired', 'processing'] as const)(
    'is 409 not_pending for a %s payment',
    async (to) => {
      env = setup();
      const c = await env.createPayment();
      const sim = env.ref.control;
      await {
        succeeded: sim.succeedPayment,
        failed: sim.failPayment,
        expired: sim.expirePayment,
        processing: sim.processPayment,
      }[to](c.payment.id);
      expectError(await env.call(`/payments/${c.payment.id}/cancel`, { method: 'POST' }), 409, 'not_pending');
      expect((await env.call(`/payments/${c.payment.id}`)).body.status).toBe(to);
    },
  );

  it('is 409 for a cancelled payment and 404 for an unknown one', async () => {
    env = setup();
    const c = await env.createPayment();
    await env.call(`/payments/${c.payment.id}/cancel`, { method: 'POST' });
    expectError(await env.call(`/payments/${c.payment.id}/cancel`, { method: 'POST' }), 409, 'not_pending');
    expectError(
      await env.call('/payments/4a1f1c55-9b0b-4f43-9b7e-5d0f1f8f0a11/cancel', { method: 'POST' }),
      404,
      'not_found',
    );
  });
});
