/**
 * A merchant's contract test: your checkout code against the reference service, in vitest. It starts the
 * reference in-process (real HTTP on 127.0.0.1, a frozen clock), plays the buyer and the bank, and checks what
 * your code does with every outcome. Copy it into your project's test folder, replace `checkout` with your own
 * module, and it runs in CI with no account and no network.
 *
 * In your project, save it as e.g. test/checkout.contract.test.ts, import from 'psp-sdk' and 'psp-sdk/reference'
 * instead of '../src/...', and `npx vitest run` runs it. (In this repository it lives outside the project's test
 * glob and is run once, by test/docs/merchant-contract.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspClient, UnprocessableEntityError } from '../src/index.js';
import { type RunningReference, startReference } from '../src/reference/index.js';

// ---- the code under test: normally imported from your app ------------------------------------------------
type OrderState = 'awaiting_payment' | 'paid' | 'payment_failed' | 'refused';

function checkout(client: PspClient) {
  return {
    async startPayment(orderId: string, total: number) {
      const res = await client.payments.create(
        { amount: total, order_id: orderId },
        { idempotencyKey: orderId },
      );
      const state: OrderState = res.failure_code ? 'refused' : 'awaiting_payment';
      return { state, paymentId: res.payment.id, redirectTo: res.payment_url, reason: res.failure_code };
    },
    async settle(paymentId: string): Promise<OrderState> {
      const payment = await client.payments.get(paymentId);
      if (payment.status === 'succeeded' || payment.status === 'refunded') return 'paid';
      if (payment.status === 'pending' || payment.status === 'processing') return 'awaiting_payment';
      return 'payment_failed';
    },
  };
}
// ------------------------------------------------------------------------------------------------------------

describe('checkout against the reference service', () => {
  let ref: RunningReference;
  let client: PspClient;
  let shop: ReturnType<typeof checkout>;

  beforeAll(async () => {
    ref = await startReference({ port: 0, clock: 'manual' });
    client = new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url });
    shop = checkout(client);
  });
  afterAll(() => ref.close());

  it('marks the order paid once the buyer pays', async () => {
    const started = await shop.startPayment('order-1', 150_000);
    expect(started.state).toBe('awaiting_payment');
    await ref.pay(started.paymentId); // the buyer presses Pay on the payment page
    expect(await shop.settle(started.paymentId)).toBe('paid');
  });

  it('returns the same payment when the order is submitted twice', async () => {
    const first = await shop.startPayment('order-2', 10_000);
    const again = await shop.startPayment('order-2', 10_000);
    expect(again.paymentId).toBe(first.paymentId);
  });

  // Test mode plans outcomes by the amount's last three digits (docs/testing.md): 901 fails when paid,
  // 902 is refused at creation, 903 expires in the bank, anything else succeeds.
  it('handles a bank decline (amount ending in 901)', async () => {
    const started = await shop.startPayment('order-3', 10_901);
    await ref.pay(started.paymentId); // the buyer presses Pay on the payment page
    expect(await shop.settle(started.paymentId)).toBe('payment_failed');
  });

  it('handles a synchronous refusal (amount ending in 902)', async () => {
    const started = await shop.startPayment('order-4', 10_902);
    expect(started.state).toBe('refused');
    expect(started.reason).toBeTruthy();
  });

  it('handles a buyer who walks away: the link expires on the service clock', async () => {
    const started = await shop.startPayment('order-5', 20_000);
    await ref.control.advanceClock(31 * 60); // past the 30-minute link lifetime
    expect(await shop.settle(started.paymentId)).toBe('payment_failed');
    await expect(client.payments.get(started.paymentId)).resolves.toMatchObject({ status: 'expired' });
  });

  it('handles the bank confirming later: the simulator plays the bank', async () => {
    const started = await shop.startPayment('order-6', 30_000);
    await ref.control.succeedPayment(started.paymentId);
    expect(await shop.settle(started.paymentId)).toBe('paid');
  });

  it('never refunds more than was paid', async () => {
    const started = await shop.startPayment('order-7', 5_000);
    await ref.pay(started.paymentId); // the buyer presses Pay on the payment page
    await client.payments.refund(started.paymentId, { amount: 3_000 });
    await expect(client.payments.refund(started.paymentId, { amount: 3_000 })).rejects.toBeInstanceOf(
      UnprocessableEntityError,
    );
  });
});
