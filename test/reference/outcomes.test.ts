import { afterEach, describe, expect, it } from 'vitest';
import { planPaymentOutcome, planPayoutOutcome } from '../../src/reference/domain/outcomes.js';
import { expectError, setup } from './helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

const status = async (id: string) => (await env.call(`/payments/${id}`)).body;

describe('the planned-outcome rule', () => {
  it('is a function of the amount alone', () => {
    expect(planPaymentOutcome(1)).toBe('succeeded');
    expect(planPaymentOutcome(1000)).toBe('succeeded');
    expect(planPaymentOutcome(901)).toBe('failed');
    expect(planPaymentOutcome(123_901)).toBe('failed');
    expect(planPaymentOutcome(902)).toBe('refused');
    expect(planPaymentOutcome(903)).toBe('expired');
    expect(planPaymentOutcome(904)).toBe('processing_then_succeeded');
    expect(planPaymentOutcome(905)).toBe('succeeded');
    expect(planPayoutOutcome(901)).toBe('failed');
    expect(planPayoutOutcome(902)).toBe('refused');
    expect(planPayoutOutcome(903)).toBe('pending');
    expect(planPayoutOutcome(904)).toBe('succeeded');
  });

  it('succeeded: paying on the page captures the payment', async () => {
    env = setup();
    const c = await env.createPayment({ amount: 1000, method: 'sbp' });
    expect(c.simulator).toBe('succeeded');
    expect(await env.pay(c.payment.id)).toBe(303);
    const p = await status(c.payment.id);
    expect(p).toMatchObject({ status: 'succeeded', captured_at: '2026-05-06T10:00:00.000Z' });
    expect(p.rrn).toMatch(/^\d{12}$/);
    expect(p.customer_phone_mask).toMatch(/^\+7 \*\*\* \*\*\*-\d\d-\d\d$/);
    expect(p.customer_payer_bank).toEqual(expect.any(String));
  });

  it('shows card details for a card payment', async () => {
    env = setup();
    const c = await env.createPayment({ amount: 1000, method: 'cards' });
    await env.pay(c.payment.id);
    const p = await status(c.payment.id);
    expect(p.customer_card_mask).toMatch(/^220220\*{6}\d{4}$/);
    expect(p.customer_card_brand).toEqual(expect.any(String));
  });

  it('failed (901): the bank declines when the buyer pays', async () => {
    env = setup();
    const c = await env.createPayment({ amount: 10_901 });
    expect(c.simulator).toBe('failed');
    expect(c.failure_code).toBeUndefined();
    await env.pay(c.payment.id);
    expect((await status(c.payment.id)).status).toBe('failed');
  });

  it('refused (902): failed at once, with failure_code and failure_message in the 201', async () => {
    env = setup();
    const r = await env.call('/payments', { body: { amount: 10_902 } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ simulator: 'refused', failure_code: 'payment_declined' });
    expect(r.body.failure_message).toEqual(expect.any(String));
    expect(r.body.payment.status).toBe('failed');
    expect(r.body.payment.finalized_at).toBe('2026-05-06T10:00:00.000Z');
    expect(await env.pay(r.body.payment.id)).toBe(409);
  });

  it('expired (903): the bank never answers; the payment expires when the bank session ends', async () => {
    env = setup();
    const c = await env.createPayment({ amount: 10_903 });
    await env.pay(c.payment.id);
    const p = await status(c.payment.id);
    expect(p).toMatchObject({ status: 'processing', processing_until: '2026-05-06T10:10:00.000Z' });
    await env.advance(599);
    expect((await status(c.payment.id)).status).toBe('processing');
    await env.advance(1);
    expect((await status(c.payment.id)).status).toBe('expired');
  });

  it('processing_then_succeeded (904): processing, then succeeded 30 s later', async () => {
    env = setup();
    const c = await env.createPayment({ amount: 10_904 });
    await env.pay(c.payment.id);
    expect((await status(c.payment.id)).status).toBe('processing');
    await env.advance(30);
    expect((await status(c.payment.id)).status).toBe('succeeded');
  });

  it('decline on the page fails the payment', async () => {
    env = setup();
    const c = await env.createPayment();
    await env.pay(c.payment.id, 'decline');
    expect((await status(c.payment.id)).status).toBe('failed');
  });
});

describe('link lifetime on the manual clock', () => {
  it('expires a pending payment 30 minutes after creation, and not before', async () => {
    env = setup();
    const c = await env.createPayment();
    await env.advance(1799);
    expect((await status(c.payment.id)).status).toBe('pending');
    await env.advance(1);
    const p = await status(c.payment.id);
    expect(p).toMatchObject({ status: 'expired', finalized_at: '2026-05-06T10:30:00.000Z' });
    expectError(await env.call(`/payments/${c.payment.id}/cancel`, { method: 'POST' }), 409, 'not_pending');
  });

  it('leaves a paid payment alone when the link time ends', async () => {
    env = setup();
    const c = await env.createPayment();
    await env.pay(c.payment.id);
    await env.advance(3600);
    expect((await status(c.payment.id)).status).toBe('succeeded');
  });

  it('expires many payments in creation order on one advance', async () => {
    env = setup();
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      ids.push((await env.createPayment()).payment.id);
      await env.advance(1);
    }
    await env.advance(1800);
    for (const id of ids) expect((await status(id)).status).toBe('expired');
  });
});

describe('the real clock', () => {
  it('expires links and settles payouts on wall-clock timers (fake timers here)', async () => {
    const { vi } = await import('vitest');
    vi.useFakeTimers({ now: Date.parse('2026-05-06T10:00:00.000Z') });
    try {
      const { createReference } = await import('../../src/reference/service.js');
      const ref = createReference();
      const call = async (path: string, init: RequestInit = {}): Promise<any> => {
        const res = await ref.fetch(
          new Request(`http://ref.test/api/v1/public${path}`, {
            ...init,
            headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
          }),
        );
        return res.json();
      };
      const created = await call('/payments', { method: 'POST', body: '{"amount":100}' });
      const payout = await call('/payouts', {
        method: 'POST',
        body: '{"amount":100,"phone":"+79990000000","bank_id":"100000000111"}',
      });
      await vi.advanceTimersByTimeAsync(5_000);
      expect((await call(`/payouts/${payout.payout.id}`)).status).toBe('succeeded');
      await vi.advanceTimersByTimeAsync(30 * 60_000 - 5_000);
      expect((await call(`/payments/${created.payment.id}`)).status).toBe('expired');
      await ref.close();
    } finally {
      vi.useRealTimers();
    }
  });
});
