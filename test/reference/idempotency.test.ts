import { afterEach, describe, expect, it } from 'vitest';
import { expectError, payoutInput, setup } from './helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

describe('Idempotency-Key (spec 5.6)', () => {
  it('replays a payment creation: 200, idempotent true, the same payment', async () => {
    env = setup();
    const h = { 'idempotency-key': 'order-42' };
    const a = await env.call('/payments', { body: { amount: 100, order_id: '42' }, headers: h });
    // Same body with another key order and whitespace: the same request.
    const b = await env.call('/payments', { raw: ' { "order_id" : "42", "amount": 100 } ', headers: h });
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
    expect(b.body.idempotent).toBe(true);
    expect(b.body.payment.id).toBe(a.body.payment.id);
    expect(b.body.simulator).toBe(a.body.simulator);
  });

  it('replays a synchronous refusal with its failure_code', async () => {
    env = setup();
    const h = { 'idempotency-key': 'refused' };
    const a = await env.call('/payments', { body: { amount: 902 }, headers: h });
    const b = await env.call('/payments', { body: { amount: 902 }, headers: h });
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({
      idempotent: true,
      failure_code: 'payment_declined',
      simulator: 'refused',
    });
    expect(b.body.failure_message).toBe(a.body.failure_message);
  });

  it('shows the object as it is now on a replay', async () => {
    env = setup();
    const h = { 'idempotency-key': 'k' };
    const a = await env.call('/payments', { body: { amount: 100 }, headers: h });
    await env.ref.control.succeedPayment(a.body.payment.id);
    const b = await env.call('/payments', { body: { amount: 100 }, headers: h });
    expect(b.body.payment.status).toBe('succeeded');
  });

  it('is 409 idempotent_conflict for another body, another endpoint, or another mode', async () => {
    env = setup();
    const h = { 'idempotency-key': 'same' };
    await env.call('/payments', { body: { amount: 100 }, headers: h });
    expectError(
      await env.call('/payments', { body: { amount: 101 }, headers: h }),
      409,
      'idempotent_conflict',
    );
    expectError(await env.call('/payouts', { body: payoutInput(), headers: h }), 409, 'idempotent_conflict');
    await env.ref.control.updateMerchant(env.ref.merchant_id, { live_enabled: true });
    const live = await env.ref.control.createApiKey(env.ref.terminal_id, { mode: 'live' });
    expectError(
      await env.call('/payments', { body: { amount: 100 }, headers: h, key: live.api_key }),
      409,
      'idempotent_conflict',
    );
  });

  it('scopes keys to the merchant: another merchant may use the same key', async () => {
    env = setup();
    const other = await env.ref.control.createMerchant();
    const h = { 'idempotency-key': 'shared' };
    const a = await env.call('/payments', { body: { amount: 100 }, headers: h });
    const b = await env.call('/payments', { body: { amount: 100 }, headers: h, key: other.api_key });
    expect(b.status).toBe(201);
    expect(b.body.payment.id).not.toBe(a.body.payment.id);
  });

  it('shares a key between the terminals and keys of one merchant', async () => {
    env = setup();
    const second = await env.ref.control.createApiKey(env.ref.terminal_id, { mode: 'test' });
    const h = { 'idempotency-key': 'both-keys' };
    const a = await env.call('/payments', { body: { amount: 100 }, headers: h });
    const b = await env.call('/payments', { body: { amount: 100 }, headers: h, key: second.api_key });
    expect(b.status).toBe(200);
    expect(b.body.payment.id).toBe(a.body.payment.id);
  });

  it('replays payouts the same way', async () => {
    env = setup();
    const h = { 'idempotency-key': 'payout-1' };
    const a = await env.call('/payouts', { body: payoutInput(), headers: h });
    const b = await env.call('/payouts', { body: payoutInput(), headers: h });
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.body.idempotent).toBe(true);
    expect(b.body.payout.id).toBe(a.body.payout.id);
    expectError(
      await env.call('/payouts', { body: payoutInput({ amount: 1 }), headers: h }),
      409,
      'idempotent_conflict',
    );
  });

  it.each(['', 'x'.repeat(65), 'a\u0001b', 'a\u007fb', 'caf\u00e9'])(
    'refuses the key %j with 400',
    async (key) => {
      env = setup();
      const r = await env.call('/payments', { body: { amount: 100 }, headers: { 'idempotency-key': key } });
      expectError(r, 400, 'bad_request');
      expect(r.body.error.message).toContain('Idempotency-Key');
    },
  );

  it('accepts a 64-character key', async () => {
    env = setup();
    const r = await env.call('/payments', {
      body: { amount: 100 },
      headers: { 'idempotency-key': 'k'.repeat(64) },
    });
    expect(r.status).toBe(201);
  });

  it('does not remember a refused request: the key stays free', async () => {
    env = setup();
    const h = { 'idempotency-key': 'retry-me' };
    expectError(await env.call('/payments', { body: { amount: 0 }, headers: h }), 400);
    expect((await env.call('/payments', { body: { amount: 100 }, headers: h })).status).toBe(201);
  });

  it('does not remember a refusal of the business rules either (422, 409): the key stays free', async () => {
    env = setup();
    const c = await env.createPayment({ amount: 1000 });
    const h = { 'idempotency-key': 'refund-retry' };
    const refund = `/payments/${c.payment.id}/refund`;
    expectError(await env.call(refund, { body: { amount: 10 }, headers: h }), 409, 'not_succeeded');
    await env.ref.control.succeedPayment(c.payment.id);
    expectError(
      await env.call(refund, { body: { amount: 5000 }, headers: h }),
      422,
      'amount_exceeds_balance',
    );
    expect((await env.call(refund, { body: { amount: 10 }, headers: h })).status).toBe(201);
    const p = { 'idempotency-key': 'payout-retry' };
    const usd = payoutInput({ currency: 'USD' });
    expectError(await env.call('/payouts', { body: usd, headers: p }), 422, 'route_not_configured');
    expect((await env.call('/payouts', { body: payoutInput(), headers: p })).status).toBe(201);
  });

  it('forgets keys after 24 hours on the service clock', async () => {
    env = setup();
    const h = { 'idempotency-key': 'old' };
    const a = await env.call('/payments', { body: { amount: 100 }, headers: h });
    await env.advance(24 * 3600 + 1);
    const b = await env.call('/payments', { body: { amount: 100 }, headers: h });
    expect(b.status).toBe(201);
    expect(b.body.payment.id).not.toBe(a.body.payment.id);
  });

  it('makes exactly one payment from 100 concurrent creates with one key', async () => {
    env = setup();
    const h = { 'idempotency-key': 'burst' };
    const results = await Promise.all(
      Array.from({ length: 100 }, () => env.call('/payments', { body: { amount: 777 }, headers: h })),
    );
    const ids = new Set(results.map((r) => r.body.payment.id));
    expect(ids.size).toBe(1);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 200 && r.body.idempotent === true)).toHaveLength(99);
  });

  it('makes exactly one payout from 100 concurrent creates with one key', async () => {
    env = setup();
    const h = { 'idempotency-key': 'burst-payout' };
    const results = await Promise.all(
      Array.from({ length: 100 }, () => env.call('/payouts', { body: payoutInput(), headers: h })),
    );
    expect(new Set(results.map((r) => r.body.payout.id)).size).toBe(1);
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
  });
});
