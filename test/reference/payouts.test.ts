import { afterEach, describe, expect, it } from 'vitest';
import { expectError, expectWire, payoutInput, setup } from './helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

describe('POST /payouts', () => {
  it('creates a pending payout that succeeds after the 5 s payout delay on the service clock', async () => {
    env = setup();
    const r = await env.call('/payouts', { body: payoutInput({ full_name: 'Ivan Petrov' }) });
    expect(r.status).toBe(201);
    expectWire('CreatePayoutResponse', r.body);
    expect(r.body).toMatchObject({ mode: 'test', simulator: 'succeeded' });
    expect(r.body.payout).toMatchObject({
      amount: 5000,
      currency: 'RUB',
      method: 'payouts_sbp',
      status: 'pending',
      fail_reason: null,
      recipient: { phone: '+79991234567', bank_id: '100000000111', full_name: 'Ivan Petrov' },
      completed_at: null,
    });
    const id = r.body.payout.id;
    await env.advance(4.999);
    expect((await env.call(`/payouts/${id}`)).body.status).toBe('pending');
    await env.advance(0.001);
    const done = await env.call(`/payouts/${id}`);
    expectWire('Payout', done.body);
    expect(done.body).toMatchObject({ status: 'succeeded', completed_at: '2026-05-06T10:00:05.000Z' });
  });

  it('follows the planned-outcome rule: 901 fails later, 902 is refused at once, 903 stays pending', async () => {
    env = setup();
    const failed = await env.call('/payouts', { body: payoutInput({ amount: 10_901 }) });
    expect(failed.body.simulator).toBe('failed');
    const refused = await env.call('/payouts', { body: payoutInput({ amount: 10_902 }) });
    expect(refused.status).toBe(201);
    expect(refused.body).toMatchObject({ simulator: 'refused', failure_reason: 'payout_declined' });
    expect(refused.body.payout).toMatchObject({ status: 'failed', fail_reason: 'payout_declined' });
    const stays = await env.call('/payouts', { body: payoutInput({ amount: 10_903 }) });
    expect(stays.body.simulator).toBe('pending');
    await env.advance(3600);
    expect((await env.call(`/payouts/${failed.body.payout.id}`)).body).toMatchObject({
      status: 'failed',
      fail_reason: 'recipient_bank_declined',
    });
    expect((await env.call(`/payouts/${stays.body.payout.id}`)).body.status).toBe('pending');
    expect((await env.ref.control.succeedPayout(stays.body.payout.id)).status).toBe('succeeded');
  });

  it.each([
    [{ amount: 100, bank_id: '100000000111' }, 'phone'],
    [payoutInput({ phone: '89991234567' }), 'phone'],
    [payoutInput({ phone: '+7999123456' }), 'phone'],
    [payoutInput({ phone: '+799912345678' }), 'phone'],
    [payoutInput({ bank_id: '12345' }), 'bank_id'],
    [payoutInput({ bank_id: 100000000111 }), 'bank_id'],
    [payoutInput({ amount: 0 }), 'amount'],
    [payoutInput({ method: 'card' }), 'method'],
    [payoutInput({ extra: 'x' }), 'unknown field'],
    [payoutInput({ full_name: 'x'.repeat(257) }), 'full_name'],
  ])('refuses %j with 400 naming %s', async (body, field) => {
    env = setup();
    const r = await env.call('/payouts', { body });
    expectError(r, 400, 'bad_request');
    expect(r.body.error.message).toContain(field);
  });

  it('is 422 bank_not_supported for a bank outside the SBP directory', async () => {
    env = setup();
    expectError(
      await env.call('/payouts', { body: payoutInput({ bank_id: '999999999999' }) }),
      422,
      'bank_not_supported',
    );
  });

  it('is 422 route_not_configured when payouts are off for the merchant, or not in RUB', async () => {
    env = setup();
    expectError(
      await env.call('/payouts', { body: payoutInput({ currency: 'USD' }) }),
      422,
      'route_not_configured',
    );
    await env.ref.control.updateMerchant(env.ref.merchant_id, { payouts_enabled: false });
    expectError(await env.call('/payouts', { body: payoutInput() }), 422, 'route_not_configured');
  });
});

describe('GET /payouts/{id}', () => {
  it('is 404 for unknown, malformed and foreign ids', async () => {
    env = setup();
    const r = await env.call('/payouts', { body: payoutInput() });
    const other = await env.ref.control.createMerchant();
    expectError(await env.call(`/payouts/${r.body.payout.id}`, { key: other.api_key }), 404, 'not_found');
    expectError(await env.call('/payouts/123'), 404, 'not_found');
    expectError(await env.call('/payouts/4a1f1c55-9b0b-4f43-9b7e-5d0f1f8f0a11'), 404, 'not_found');
  });
});

describe('GET /banks/sbp', () => {
  it('lists the 30 SBP participants with 12-digit member ids', async () => {
    env = setup();
    const r = await env.call('/banks/sbp');
    expect(r.status).toBe(200);
    expectWire('BankList', r.body);
    expect(r.body.items).toHaveLength(30);
    for (const b of r.body.items) expect(b.member_id).toMatch(/^\d{12}$/);
    expect(new Set(r.body.items.map((b: { member_id: string }) => b.member_id)).size).toBe(30);
  });
});
