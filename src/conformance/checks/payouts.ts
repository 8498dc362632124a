// Spec 2.5-2.7, 3.3, 4.5, 4.6: SBP payouts.
import { expect, expectError, expectStatus, field } from '../assert.js';
import { group } from '../check.js';
import { CheckFailure, NeedsControl } from '../outcomes.js';
import { bankId, expectPlanned, PHONE, payout } from './fixtures.js';
import { expectShape } from './payments.js';

export const PAYOUT_CHECKS = group('payouts', [
  {
    id: 'create-and-get',
    section: '4.5',
    quote: '201: CreatePayoutResponse.',
    sends: 'payouts.create { amount: 100, phone, bank_id of the directory, full_name }, then payouts.get',
    expects: '201 with the payout (amount, recipient) and mode test; GET answers the same payout',
    async run(kit) {
      const res = await payout(kit, 100, 'a valid payout');
      expectShape(res, 'CreatePayoutResponse', 'the answer');
      const p = field(res.json, 'payout') as Record<string, unknown>;
      expect(p.amount === 100, 'payout.amount is not 100', res);
      expect(field(p.recipient, 'phone') === PHONE, 'the recipient phone did not come back', res);
      expect(field(res.json, 'mode') === 'test', 'mode is not test for a test key', res);
      const got = await kit.api('payouts.get', String(p.id));
      expectStatus(got, 200, 'GET of the payout');
      expectShape(got, 'Payout', 'the payout');
      expect(field(got.json, 'id') === p.id, 'GET answered another payout', got);
    },
  },
  {
    id: 'outcome',
    section: '3.3',
    quote: '| (not stated) | SBP payout passed | succeeded | webhook `payout.succeeded` |',
    sends: 'payouts.create with amount 100 (planned outcome succeeded), then GET it until it moves',
    expects: 'the payout becomes succeeded with completed_at',
    async run(kit) {
      const res = await payout(kit, 100, 'a valid payout');
      expectPlanned(kit, field(res.json, 'simulator'), 'succeeded', 100);
      const id = String(field(field(res.json, 'payout'), 'id'));
      const done = await kit
        .until(
          'the payout did not become succeeded',
          () => kit.api('payouts.get', id),
          (r) => field(r.json, 'status') === 'succeeded',
          { seconds: 12, step: 1 },
        )
        .catch((error: unknown) => {
          // Without control nothing moves a payout on the kit's schedule (the spec gives no public means): a payout
          // still pending after the wait is the service's pace, not a broken rule.
          if (kit.control || !(error instanceof CheckFailure)) throw error;
          throw new NeedsControl(
            `the payout was still pending after 12 s of real time; the spec gives no public means to move it: ${error.message}`,
          );
        });
      expect(
        typeof field(done.json, 'completed_at') === 'string',
        'a succeeded payout has no completed_at',
        done,
      );
    },
  },
  {
    id: 'refused',
    section: '2.6',
    quote: '| failure_reason | string |',
    sends: 'payouts.create with amount 1902 (planned outcome: refused at creation)',
    expects: '201 with the payout failed and `failure_reason`',
    async run(kit) {
      const res = await payout(kit, 1902, 'a refused payout');
      if (field(field(res.json, 'payout'), 'status') !== 'failed')
        expectPlanned(kit, field(res.json, 'simulator'), 'a refusal at creation', 1902);
      expect(typeof field(res.json, 'failure_reason') === 'string', 'no failure_reason on a refusal', res);
      expect(field(field(res.json, 'payout'), 'status') === 'failed', 'a refused payout is not failed', res);
    },
  },
  {
    id: 'input-refusals',
    section: '2.5',
    quote: '| phone | string | R | `+7` followed by exactly 10 digits |',
    sends: 'payouts.create with a phone of 9 digits, a bank_id of 11 digits, amount 0, no phone',
    expects: '400 with the error body for each',
    async run(kit) {
      const bank_id = await bankId(kit);
      const bad: Array<[string, unknown]> = [
        ['a phone of 9 digits', { amount: 100, phone: '+7999000000', bank_id }],
        ['a bank_id of 11 digits', { amount: 100, phone: PHONE, bank_id: '10000000000' }],
        ['amount 0', { amount: 0, phone: PHONE, bank_id }],
        ['no phone', { amount: 100, bank_id }],
      ];
      for (const [what, body] of bad) expectError(await kit.api('payouts.create', { body }), 400, what);
    },
  },
  {
    id: 'route-not-configured',
    section: '4.5',
    quote: '422: the route is not configured, or the bank does not support the method.',
    sends: 'payouts.create to a bank_id of 12 digits that is not in the directory (000000000000)',
    expects: '422 with the error body',
    async run(kit) {
      const res = await kit.api('payouts.create', {
        body: { amount: 100, phone: PHONE, bank_id: '000000000000' },
      });
      expectError(res, 422, 'a bank outside the directory');
    },
  },
]);
