// Spec 2.4, 3.2, 4.4: refunds, never above the amount.
import { CODE } from '../../schemas/errors.js';
import { expect, expectError, expectStatus, field } from '../assert.js';
import { group } from '../check.js';
import { expectShape } from './payments.js';

const NEVER_ABOVE =
  'Rules: the sum of all successful refunds of a payment never exceeds the payment `amount`.';

export const REFUND_CHECKS = group('refunds', [
  {
    id: 'partial-then-rest',
    section: '4.4',
    quote: '`amount` (integer int64, minor units; 0 or absent means refund the whole remaining balance)',
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
      const after = await kit.api('payments.get', paid.id);
      expect(field(after.json, 'amount_refunded') === 1000, 'amount_refunded is not the whole amount', after);
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
      expectError(
        await kit.api('payments.refund', paid.id, { body: { amount: 1001 } }),
        422,
        'a refund above the amount',
      );
      expectStatus(
        await kit.api('payments.refund', paid.id, { body: { amount: 600 } }),
        201,
        'a refund of 600',
      );
      expectError(
        await kit.api('payments.refund', paid.id, { body: { amount: 500 } }),
        422,
        'a refund above the balance',
      );
      const after = await kit.api('payments.get', paid.id);
      expect(field(after.json, 'amount_refunded') === 600, 'a refused refund moved money', after);
    },
  },
  {
    id: 'fully-refunded',
    section: '4.4',
    quote: '409: the payment is not in succeeded, or it is already fully refunded.',
    sends: 'payments.refund of a fully refunded payment',
    expects: '409 with the error body',
    async run(kit) {
      const paid = await kit.succeededPayment(500);
      expectStatus(await kit.api('payments.refund', paid.id), 201, 'a full refund');
      const again = await kit.api('payments.refund', paid.id, { body: { amount: 1 } });
      expectError(again, 409, 'a refund of a fully refunded payment');
    },
  },
  {
    id: 'not-succeeded',
    section: '4.4',
    quote: '409: the payment is not in succeeded, or it is already fully refunded.',
    sends: 'payments.refund of a pending payment',
    expects: '409 with the error body; the payment stays pending',
    async run(kit) {
      const made = await kit.createPayment({ amount: 100, order_id: 'kit-refund-pending' });
      const res = await kit.api('payments.refund', made.id, { body: { amount: 50 } });
      expectError(res, 409, 'a refund of a pending payment');
    },
  },
  {
    id: 'not-found',
    section: '4.4',
    quote: '404: not found.',
    sends: 'payments.refund of a UUID never issued',
    expects: '404 with the error body',
    async run(kit) {
      const res = await kit.api('payments.refund', '00000000-0000-4000-8000-000000000000', { body: {} });
      expectError(res, 404, 'a refund of an unknown payment');
    },
  },
  {
    id: 'bad-amount',
    section: '4.4',
    quote: '`amount` (integer int64, minor units; 0 or absent means refund the whole remaining balance)',
    sends: 'payments.refund { amount: -5 } and { amount: 1.5 } of a succeeded payment',
    expects: '400 `bad_request` for both, nothing refunded',
    async run(kit) {
      const paid = await kit.succeededPayment(300);
      expectError(
        await kit.api('payments.refund', paid.id, { body: { amount: -5 } }),
        400,
        'a negative amount',
        CODE.bad_request,
      );
      expectError(
        await kit.api('payments.refund', paid.id, { body: { amount: 1.5 } }),
        400,
        'a fraction',
        CODE.bad_request,
      );
      const after = await kit.api('payments.get', paid.id);
      expect(field(after.json, 'amount_refunded') === 0, 'a refused refund moved money', after);
    },
  },
]);
