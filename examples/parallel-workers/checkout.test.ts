import { beforeAll, expect, it } from 'vitest';
import { newWorker, type Worker } from './worker.js';

let w: Worker;
beforeAll(async () => {
  w = await newWorker('checkout worker');
});

it('pays an order, and its journal holds its own requests alone', async () => {
  const { payment } = await w.psp.payments.create({ amount: 1000, order_id: 'order-1' });
  await w.control(`/_simulator/payments/${payment.id}/succeed`, { method: 'POST' });
  expect((await w.psp.payments.get(payment.id)).status).toBe('succeeded');
  const journal = (await (await w.control('/_simulator/requests')).json()) as {
    items: Array<{ merchant_id: string | null }>;
  };
  expect(journal.items.length).toBeGreaterThan(0);
  expect(journal.items.every((e) => e.merchant_id === w.merchant_id)).toBe(true);
});

it("survives a lost answer with one payment: the fault rule hits this worker's requests alone", async () => {
  const rule = await w.control('/_simulator/faults', {
    body: { kind: 'error', status: 503, count: 1, match: { method: 'POST' } },
  });
  expect(rule.status).toBe(201);
  const { payment } = await w.psp.payments.create({ amount: 2500, order_id: 'order-2' });
  const journal = (await (await w.control('/_simulator/requests?operation=payments.create')).json()) as {
    items: Array<{ status: number; idempotency_key: string | null }>;
  };
  const tries = journal.items.slice(-2);
  expect(tries.map((e) => e.status)).toEqual([503, 201]);
  expect(tries[0]!.idempotency_key).toBe(tries[1]!.idempotency_key);
  expect(payment.amount).toBe(2500);
});

it('may not move the shared clock: that stays with the admin token', async () => {
  expect((await w.control('/_simulator/clock/advance', { body: { seconds: 60 } })).status).toBe(403);
});
