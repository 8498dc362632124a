// Spec 2.4, 3.2, 4.4: refunds, never above the amount.
import { CODE } from '../../schemas/errors.js';
import { expect, expectError, expectStatus, field } from '../assert.js';
import { group } from '../check.js';
import type { Kit } from '../kit.js';
import { expectRefunded } from './fixtures.js';
import { expectShape } from './payments.js';

const NEVER_ABOVE =
  'Rules: the sum of all successful refunds of a payment never exceeds the payment `amount`.';
const AMOUNT = '`amount` (integer int64, minor units; 0 or absent means refund the whole remaining balance)';
const NOT_REFUNDABLE = '409: the payment is not in succeeded, or it is already fully refunded.';

/** payments.refund of `amount` of the payment `id`, on the wire. */
const refund = (kit: Kit, id: string, amount: number) => kit.api('payments.refund', id, { body: { amount } });

export const REFUND_CHECKS = group('refunds', [
  {
    id: 'partial-then-rest',
    section: '4.4',
    quote: AMOUNT,
    sends: 'payments.refund { amount: 300, reason } of a succeeded 1000, then a refund with no amount',
    expects: '201 Refund of 300, amount_refunded 300; then 201 Refund of 700 and the payment fully refunded',
    async run(kit) {
      const paid = await kit.succeededPayment(1000);
      const first = await kit.api('payments.refund', paid.id, {
        body: { amount: 300, reason: 'kit partial' },
      });
      expectStatus(first, 201, 'a partial refund');
      expectShape(first, 'Refund', 'the refund');
      expect(field(first.json, 'amount') === 300, 'the refund is not of 300', first);
      expect(field(first.json, 'payment_id') === paid.id, 'the refund names another payment', first);
      const mid = await kit.api('payments.get', paid.id);
      expect(field(mid.json, 'amount_refunded') === 300, 'amount_refunded is not 300', mid);
      const refunds = field(mid.json, 'refunds');
      expect(Array.isArray(refunds) && refunds.length === 1, 'the payment does not list its refund', mid);
      const rest = await kit.api('payments.refund', paid.id, { body: {} });
      expectStatus(rest, 201, 'a refund of the rest');
      expect(
        field(rest.json, 'amount') === 700,
        'a refund with no amount did not take the remaining 700',
        rest,
      );
      await expectRefunded(kit, paid.id, 1000, 'amount_refunded is not the whole amount');
    },
  },
  {
    id: 'above-balance',
    section: '3.2',
    quote: NEVER_ABOVE,
    sends: 'payments.refund { amount: 1001 } of a succeeded 1000; then 600 and 500',
    expects: '422 for 1001; 201 for 600; 422 for 500 (only 400 left); amount_refunded stays 600',
    async run(kit) {
      const paid = await kit.succeededPayment(1000);
      expectError(await refund(kit, paid.id, 1001), 422, 'a refund above the amount');
      expectStatus(await refund(kit, paid.id, 600), 201, 'a refund of 600');
      expectError(await refund(kit, paid.id, 500), 422, 'a refund above the balance');
      await expectRefunded(kit, paid.id, 600, 'a refused refund moved money');
    },
  },
  {
    id: 'fully-refunded',
    section: '4.4',
    quote: NOT_REFUNDABLE,
    sends: 'payments.refund of a fully refunded payment',
    expects: '409 with the error body',
    async run(kit) {
      const paid = await kit.succeededPayment(500);
      expectStatus(await kit.api('payments.refund', paid.id), 201, 'a full refund');
      expectError(await refund(kit, paid.id, 1), 409, 'a refund of a fully refunded payment');
    },
  },
  {
    id: 'not-succeeded',
    section: '4.4',
    quote: NOT_REFUNDABLE,
    sends: 'payments.refund of a pending payment',
    expects: '409 with the error body; the payment stays pending',
    async run(kit) {
      const made = await kit.createPayment({ amount: 100, order_id: 'kit-refund-pending' });
      expectError(await refund(kit, made.id, 50), 409, 'a refund of a pending payment');
    },
  },
  {
    id: 'bad-amount',
    section: '4.4',
    quote: AMOUNT,
    sends: 'payments.refund { amount: -5 } and { amount: 1.5 } of a succeeded payment',
    expects: '400 `bad_request` for both, nothing refunded',
    async run(kit) {
      const paid = await kit.succeededPayment(300);
      expectError(await refund(kit, paid.id, -5), 400, 'a negative amount', CODE.bad_request);
      expectError(await refund(kit, paid.id, 1.5), 400, 'a fraction', CODE.bad_request);
      await expectRefunded(kit, paid.id, 0, 'a refused refund moved money');
    },
  },
]);
