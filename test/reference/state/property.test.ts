import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { createReference, type Reference } from '../../../src/reference/service.js';
import { BANK_ID } from '../helpers.js';

// Random sequences of operations, then snapshot -> restore: into the same reference after more random operations,
// and into a new one started from the document. Either way the snapshot that comes out equals the one that went in.

type Op =
  | { kind: 'payment'; amount: number; key: string | undefined }
  | { kind: 'move'; to: 'succeed' | 'fail' | 'process' | 'expire' | 'pay' }
  | { kind: 'refund'; amount: number }
  | { kind: 'payout'; amount: number }
  | { kind: 'merchant' }
  | { kind: 'endpoint' }
  | { kind: 'advance'; seconds: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('payment' as const),
    amount: fc.constantFrom(1000, 10_901, 10_902, 10_903, 10_904),
    key: fc.option(fc.constantFrom('a', 'b'), { nil: undefined }),
  }),
  fc.record({
    kind: fc.constant('move' as const),
    to: fc.constantFrom('succeed', 'fail', 'process', 'expire', 'pay'),
  }),
  fc.record({ kind: fc.constant('refund' as const), amount: fc.constantFrom(0, 100, 400) }),
  fc.record({ kind: fc.constant('payout' as const), amount: fc.constantFrom(1000, 10_901, 10_903) }),
  fc.record({ kind: fc.constant('merchant' as const) }),
  fc.record({ kind: fc.constant('endpoint' as const) }),
  fc.record({ kind: fc.constant('advance' as const), seconds: fc.constantFrom(1, 10, 700, 2000) }),
);

async function play(ref: Reference, ops: Op[]): Promise<void> {
  const call = (path: string, init: { body?: unknown; key?: string; idem?: string } = {}) =>
    ref.fetch(
      new Request(`http://ref.test${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${init.key ?? ref.api_key}`,
          'content-type': 'application/json',
          ...(init.idem ? { 'idempotency-key': init.idem } : {}),
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      }),
    );
  let last: string | undefined;
  for (const o of ops) {
    switch (o.kind) {
      case 'payment': {
        const r = await call('/api/v1/public/payments', {
          body: { amount: o.amount },
          ...(o.key ? { idem: o.key } : {}),
        });
        if (r.status < 300) last = ((await r.json()) as { payment: { id: string } }).payment.id;
        break;
      }
      case 'move':
        if (!last) break;
        if (o.to === 'pay') await call(`/pay/${last}/pay`);
        else
          try {
            await {
              succeed: ref.control.succeedPayment,
              fail: ref.control.failPayment,
              process: ref.control.processPayment,
              expire: ref.control.expirePayment,
            }[o.to](last);
          } catch {
            // A move the state machine refuses: nothing changed.
          }
        break;
      case 'refund':
        if (last)
          await call(`/api/v1/public/payments/${last}/refund`, {
            body: o.amount ? { amount: o.amount } : {},
          });
        break;
      case 'payout':
        await call('/api/v1/public/payouts', {
          body: { amount: o.amount, phone: '+79001234567', bank_id: BANK_ID },
        });
        break;
      case 'merchant':
        await ref.control.createMerchant({ name: 'm' });
        break;
      case 'endpoint':
        await ref.control.createWebhookEndpoint(ref.shop_id, { url: 'https://hooks.example/x' });
        break;
      case 'advance':
        await ref.control.advanceClock(o.seconds);
        break;
    }
  }
}

// Webhook receivers that always fail, answered at once: deliveries stay pending with retries on the clock.
const failing = (async () => new Response(null, { status: 503 })) as unknown as typeof fetch;

describe('snapshot/restore property', () => {
  it('any state, snapshot, more operations, restore: the same snapshot; a new reference from it: the same snapshot', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 25 }),
        fc.array(op, { maxLength: 10 }),
        async (before, after) => {
          const ref = createReference({
            clock: new ManualClock(Date.parse('2026-05-06T10:00:00Z')),
            webhookFetch: failing,
          });
          await play(ref, before);
          const doc = await ref.control.snapshot();
          await play(ref, after);
          await ref.control.restore(doc);
          expect(await ref.control.snapshot()).toEqual(doc);
          const copy = createReference({ clock: 'manual', state: doc, webhookFetch: failing });
          expect(await copy.control.snapshot()).toEqual(doc);
          await Promise.all([ref.close(), copy.close()]);
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);
});
