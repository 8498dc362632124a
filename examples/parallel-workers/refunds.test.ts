import { beforeAll, expect, it } from 'vitest';
import { newWorker, type Worker } from './worker.js';

let w: Worker;
beforeAll(async () => {
  w = await newWorker('refunds worker');
});

it('refunds its own payment, and cannot reach another worker’s objects', async () => {
  const { payment } = await w.psp.payments.create({ amount: 3000, order_id: 'order-r1' });
  await w.control(`/_simulator/payments/${payment.id}/succeed`, { method: 'POST' });
  await w.psp.payments.refund(payment.id, { amount: 1000 });
  expect((await w.psp.payments.get(payment.id)).amount_refunded).toBe(1000);
  // Another merchant's object is not there for this token, as an unknown id is not.
  const other = await newWorker('someone else');
  const { payment: theirs } = await other.psp.payments.create({ amount: 100 });
  expect((await w.control(`/_simulator/payments/${theirs.id}/succeed`, { method: 'POST' })).status).toBe(404);
});
