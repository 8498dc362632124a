/**
 * Create a payment and send the buyer to its payment page.
 *
 *   npx tsx examples/create-payment.ts
 *
 * Uses PSP_API_KEY / PSP_BASE_URL when set, else the embedded reference service. In your app, import from
 * 'psp-sdk' instead of '../src/index.js'.
 */
import { type PspClient, PspValidationError } from '../src/index.js';
import { isMain, runExample } from './support/run.js';

export interface Order {
  id: string;
  /** Total in minor units (kopecks). */
  total: number;
  description: string;
}

/** Creates the payment for an order; returns where to redirect the buyer. */
export async function createPayment(client: PspClient, order: Order) {
  try {
    const res = await client.payments.create(
      {
        amount: order.total,
        currency: 'RUB',
        order_id: order.id,
        description: order.description,
        return_url: `https://shop.example/orders/${order.id}`,
        metadata: { channel: 'web' },
      },
      // One key per order: a retry after a crash returns the same payment instead of making a second one.
      { idempotencyKey: `order-${order.id}` },
    );
    return {
      paymentId: res.payment.id,
      status: res.payment.status,
      redirectTo: res.payment_url,
      mode: res.mode,
    };
  } catch (err) {
    if (err instanceof PspValidationError) {
      // Nothing was sent: the SDK checked the input against the spec first.
      throw new Error(
        `order ${order.id} cannot be paid: ${err.issues.map((i) => `${i.field} ${i.message}`).join('; ')}`,
      );
    }
    throw err;
  }
}

if (isMain(import.meta.url)) {
  await runExample(({ client }) =>
    createPayment(client, { id: `A-${Date.now()}`, total: 249_900, description: 'Espresso machine' }),
  );
}
