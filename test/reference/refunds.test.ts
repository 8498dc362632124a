import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/reference/domain/defaults.js';
import { expectError, expectWire, setup } from './helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

async function succeeded(amount = 1000) {
  const c = await env.createPayment({ amount });
  await env.ref.control.succeedPayment(c.payment.id);
  return c.payment.id as string;
}

describe('POST /payments/{id}/refund', () => {
  it('refunds part, then the rest; the payment becomes refunded', async () => {
    env = setup();
    const id = await succeeded(1000);
    const a = await env.call(`/payments/${id}/refund`, { body: { amount: 300, reason: 'broken cup' } });
    expect(a.status).toBe(201);
    expectWire('Refund', a.body);
    expect(a.body).toMatchObject({ payment_id: id, amount: 300, reason: 'broken cup', status: 'succeeded' });
    let p = (await env.call(`/payments/${id}`)).body;
    expect(p.status).toBe('succeeded');
    expect(p.amount_refunded).toBe(300);
    expect(p.refunds).toHaveLength(1);
    const b = await env.call(`/payments/${id}/refund`, { method: 'POST' });
    expect(b.status).toBe(201);
    expect(b.body.amount).toBe(700);
    p = (await env.call(`/payments/${id}`)).body;
    expect(p.status).toBe('refunded');
    expect(p.amount_refunded).toBe(1000);
    expect(p.refunds.map((r: { amount: number }) => r.amount)).toEqual([300, 700]);
    expectWire('Payment', p);
  });

  it('treats amount 0 as the whole remaining balance', async () => {
    env = setup();
    const id = await succeeded(500);
    const r = await env.call(`/payments/${id}/refund`, { body: { amount: 0 } });
    expect(r.body.amount).toBe(500);
  });

  it('is 422 when the amount exceeds the balance, and changes nothing', async () => {
    env = setup();
    const id = await succeeded(1000);
    await env.call(`/payments/${id}/refund`, { body: { amount: 600 } });
    expectError(
      await env.call(`/payments/${id}/refund`, { body: { amount: 401 } }),
      422,
      'amount_exceeds_balance',
    );
    expect((await env.call(`/payments/${id}`)).body.amount_refunded).toBe(600);
  });

  // Issue 32: past 2^53 - 1 it was 400 (the safe-integer cap of every amount); the spec names 422 for a refund
  // larger than the balance, and no balance is that large.
  it('is 422 however large the amount, past 2^53 - 1 and past what JSON reads as a number, and changes nothing', async () => {
    env = setup();
    const id = await succeeded(1000);
    for (const amount of ['9007199254740992', '18446744073709551616', `9${'9'.repeat(400)}`]) {
      const r = await env.call(`/payments/${id}/refund`, { raw: `{"amount":${amount}}` });
      expectError(r, 422, 'amount_exceeds_balance');
      expect(r.body.error.message).toBe('The refund amount is larger than the available balance 1000.');
    }
    expectError(await env.call(`/payments/${id}/refund`, { raw: '{"amount":-1e30}' }), 400, 'bad_request');
    const p = (await env.call(`/payments/${id}`)).body;
    expect([p.status, p.amount_refunded, p.refunds]).toEqual(['succeeded', 0, []]);
  });

  it('is 409 for a payment that is not succeeded, or fully refunded', async () => {
    env = setup();
    const c = await env.createPayment();
    expectError(await env.call(`/payments/${c.payment.id}/refund`, { body: {} }), 409, 'not_succeeded');
    const id = await succeeded();
    await env.call(`/payments/${id}/refund`, { body: {} });
    expectError(await env.call(`/payments/${id}/refund`, { body: {} }), 409, 'already_refunded');
  });

  it('is 404 for an unknown payment, 400 for a bad body', async () => {
    env = setup();
    expectError(
      await env.call('/payments/4a1f1c55-9b0b-4f43-9b7e-5d0f1f8f0a11/refund', { body: {} }),
      404,
      'not_found',
    );
    const id = await succeeded();
    for (const body of [
      { amount: -1 },
      { amount: 1.5 },
      { amount: 'all' },
      { reason: 5 },
      { extra: 1 },
      [1],
    ]) {
      expectError(await env.call(`/payments/${id}/refund`, { body }), 400, 'bad_request');
    }
    expect((await env.call(`/payments/${id}`)).body.amount_refunded).toBe(0);
  });

  it('replays by Idempotency-Key with 200 and the same refund; another body is 409', async () => {
    env = setup();
    const id = await succeeded(1000);
    const h = { 'idempotency-key': 'refund-1' };
    const a = await env.call(`/payments/${id}/refund`, { body: { amount: 100 }, headers: h });
    const b = await env.call(`/payments/${id}/refund`, { body: { amount: 100 }, headers: h });
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(b.body).toEqual(a.body);
    expectError(
      await env.call(`/payments/${id}/refund`, { body: { amount: 200 }, headers: h }),
      409,
      'idempotent_conflict',
    );
    expect((await env.call(`/payments/${id}`)).body.amount_refunded).toBe(100);
  });

  it('never refunds more than the amount under 100 concurrent refunds', async () => {
    env = setup();
    const id = await succeeded(1000);
    const results = await Promise.all(
      Array.from({ length: 100 }, () => env.call(`/payments/${id}/refund`, { body: { amount: 30 } })),
    );
    const ok = results.filter((r) => r.status === 201);
    expect(ok).toHaveLength(33);
    for (const r of results) if (r.status !== 201) expect([409, 422]).toContain(r.status);
    const p = (await env.call(`/payments/${id}`)).body;
    expect(p.amount_refunded).toBe(990);
    expect(p.refunds.reduce((s: number, r: { amount: number }) => s + r.amount, 0)).toBe(990);
  });

  it('makes one full refund out of 100 concurrent full refunds', async () => {
    env = setup();
    const id = await succeeded(1000);
    const results = await Promise.all(
      Array.from({ length: 100 }, () => env.call(`/payments/${id}/refund`, { body: {} })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status === 409)).toHaveLength(99);
    expect((await env.call(`/payments/${id}`)).body).toMatchObject({
      status: 'refunded',
      amount_refunded: 1000,
    });
  });

  it(`allows ${DEFAULTS.maxRefundsPerPayment} refunds per payment, the last of them for the whole balance`, async () => {
    env = setup();
    const max = DEFAULTS.maxRefundsPerPayment;
    const id = await succeeded(10_000);
    const h = { 'idempotency-key': 'first' };
    const first = await env.call(`/payments/${id}/refund`, { body: { amount: 1 }, headers: h });
    for (let i = 1; i < max - 1; i++) {
      expect((await env.call(`/payments/${id}/refund`, { body: { amount: 1 } })).status).toBe(201);
    }
    const before = (await env.call(`/payments/${id}`)).text;
    // One more partial refund would leave money that could never be refunded: refused, nothing changes.
    const r = await env.call(`/payments/${id}/refund`, { body: { amount: 1 } });
    expectError(r, 409, 'refund_limit_reached');
    expect(r.body.error.message).toContain(`${10_000 - (max - 1)}`);
    expect((await env.call(`/payments/${id}`)).text).toBe(before);
    // A replay of an earlier refund still replays.
    const again = await env.call(`/payments/${id}/refund`, { body: { amount: 1 }, headers: h });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    // The whole balance, as the last refund, is taken.
    const last = await env.call(`/payments/${id}/refund`, { method: 'POST' });
    expect(last.status, last.text).toBe(201);
    const after = (await env.call(`/payments/${id}`)).body;
    expect(after).toMatchObject({ status: 'refunded', amount_refunded: 10_000 });
    expect(after.refunds).toHaveLength(max);
  });
});
