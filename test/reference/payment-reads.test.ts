import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/reference/domain/defaults.js';
import { expectWire, setup } from './helpers.js';

// GET /payments/{id} after every way a payment can change. Each test reads the payment first, changes it by one
// mutation path, and reads again: a read that kept an earlier answer (a cache) would show the old state.

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

async function read(id: string) {
  const r = await env.call(`/payments/${id}`);
  expect(r.status, r.text).toBe(200);
  expectWire('Payment', r.body);
  return r.body;
}

/** Creates a payment and reads it twice. */
async function cached(input: Record<string, unknown> = { amount: 1000 }) {
  const created = await env.createPayment(input);
  const id = created.payment.id as string;
  const first = await read(id);
  expect(await read(id)).toEqual(first);
  expect(first.status).toBe(created.payment.status);
  return { id, first };
}

describe('GET /payments/{id} after every change of the payment', () => {
  it('shows the simulator moves: succeed (captured, buyer, rrn), fail, expire, process', async () => {
    env = setup();
    const sim = env.ref.control;
    const a = await cached();
    const succeeded = await sim.succeedPayment(a.id);
    const after = await read(a.id);
    expect(after).toEqual(succeeded);
    expect(after.status).toBe('succeeded');
    expect(after.captured_at).not.toBeNull();
    expect(after.finalized_at).not.toBeNull();
    expect(after.rrn).toMatch(/^\d{12}$/);
    expect(after.customer_phone_mask).not.toBeNull();

    const b = await cached();
    expect(await sim.failPayment(b.id)).toEqual(await read(b.id));
    expect((await read(b.id)).status).toBe('failed');

    const c = await cached();
    await sim.expirePayment(c.id);
    expect((await read(c.id)).status).toBe('expired');

    const d = await cached();
    const processing = await sim.processPayment(d.id);
    const dr = await read(d.id);
    expect(dr).toEqual(processing);
    expect(dr.status).toBe('processing');
    expect(dr.processing_until).not.toBeNull();
    // And on to succeeded from processing.
    await sim.succeedPayment(d.id);
    expect((await read(d.id)).status).toBe('succeeded');
  });

  it('shows a cancel', async () => {
    env = setup();
    const a = await cached();
    const r = await env.call(`/payments/${a.id}/cancel`, { method: 'POST' });
    expect(r.status, r.text).toBe(200);
    const after = await read(a.id);
    expect(after.status).toBe('cancelled');
    expect(after.finalized_at).not.toBeNull();
  });

  it('shows each refund, a partial one and the one that makes it refunded', async () => {
    env = setup();
    const a = await cached({ amount: 1000 });
    await env.ref.control.succeedPayment(a.id);
    expect((await read(a.id)).status).toBe('succeeded');
    const r1 = await env.call(`/payments/${a.id}/refund`, { body: { amount: 300 } });
    expect(r1.status, r1.text).toBe(201);
    const partly = await read(a.id);
    expect(partly.status).toBe('succeeded');
    expect(partly.amount_refunded).toBe(300);
    expect(partly.refunds.map((x: { id: string }) => x.id)).toEqual([r1.body.id]);
    const r2 = await env.call(`/payments/${a.id}/refund`, { body: { amount: 700 } });
    expect(r2.status, r2.text).toBe(201);
    const fully = await read(a.id);
    expect(fully.status).toBe('refunded');
    expect(fully.amount_refunded).toBe(1000);
    expect(fully.refunds).toHaveLength(2);
  });

  it('shows a refund of the same amount twice (the count of refunds changes, the statuses do not)', async () => {
    env = setup();
    const a = await cached({ amount: 1000 });
    await env.ref.control.succeedPayment(a.id);
    await env.call(`/payments/${a.id}/refund`, { body: { amount: 100 } });
    expect((await read(a.id)).refunds).toHaveLength(1);
    await env.call(`/payments/${a.id}/refund`, { body: { amount: 100 } });
    const after = await read(a.id);
    expect(after.refunds).toHaveLength(2);
    expect(after.amount_refunded).toBe(200);
  });

  it('shows the expiry of a pending link on the clock', async () => {
    env = setup();
    const a = await cached();
    await env.ref.control.advanceClock(DEFAULTS.linkLifetimeMs / 1000 + 1);
    const after = await read(a.id);
    expect(after.status).toBe('expired');
    expect(after.finalized_at).not.toBeNull();
  });

  it('shows the end of a bank session on the clock (processing to expired)', async () => {
    env = setup();
    const a = await cached();
    await env.ref.control.processPayment(a.id);
    expect((await read(a.id)).status).toBe('processing');
    await env.ref.control.advanceClock(DEFAULTS.bankSessionMs / 1000 + 1);
    expect((await read(a.id)).status).toBe('expired');
  });

  it("shows the buyer's pay, decline and a slow confirmation on the clock", async () => {
    env = setup();
    const a = await cached({ amount: 1000 });
    expect(await env.pay(a.id, 'pay')).toBeLessThan(400);
    expect((await read(a.id)).status).toBe('succeeded');

    const b = await cached({ amount: 1000 });
    expect(await env.pay(b.id, 'decline')).toBeLessThan(400);
    expect((await read(b.id)).status).toBe('failed');

    const c = await cached({ amount: 10_904 }); // processing, then succeeded after slowConfirmMs
    expect(await env.pay(c.id, 'pay')).toBeLessThan(400);
    expect((await read(c.id)).status).toBe('processing');
    await env.ref.control.advanceClock(DEFAULTS.slowConfirmMs / 1000 + 1);
    const done = await read(c.id);
    expect(done.status).toBe('succeeded');
    expect(done.captured_at).not.toBeNull();
  });

  it('never shows one caller the text another read: other merchants and modes still get 404', async () => {
    env = setup();
    const a = await cached();
    const other = await env.ref.control.createMerchant();
    const r = await env.call(`/payments/${a.id}`, { key: other.api_key });
    expect(r.status).toBe(404);
  });
});
