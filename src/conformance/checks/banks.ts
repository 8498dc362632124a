// Spec 2.8, 4.7: the SBP bank directory.
import { expect, expectStatus } from '../assert.js';
import { group } from '../check.js';
import { show } from '../kit.js';
import { PHONE } from './fixtures.js';
import { expectShape } from './payments.js';

export const BANK_CHECKS = group('banks', [
  {
    id: 'directory',
    section: '4.7',
    quote:
      '200: `{ items: [SBPBank, ...] }`. The list holds the top 30 participants of the national payment system',
    sends: 'banks.list',
    expects: '200 { items }: 30 banks, each a 12-digit member_id (no two alike), name and name_en',
    async run(kit) {
      const res = await kit.api('banks.list');
      expectStatus(res, 200, 'the directory');
      expectShape(res, 'BankList', 'the directory');
      const items = (res.json as { items: Array<{ member_id: string; name: string; name_en: string }> })
        .items;
      expect(items.length === 30, `the directory holds ${items.length} banks, not 30`, res);
      const bad = items.find((b) => !/^\d{12}$/.test(b.member_id));
      expect(!bad, `member_id ${JSON.stringify(bad?.member_id)} is not 12 digits`, res);
      expect(
        new Set(items.map((b) => b.member_id)).size === items.length,
        'two banks share a member_id',
        res,
      );
      expect(
        items.every((b) => b.name && b.name_en),
        'a bank has no name or name_en',
        res,
      );
    },
  },
  {
    id: 'sdk-list',
    section: '4.7',
    quote: '`member_id` is the value to send as `bank_id` in a payout.',
    sends: "the SDK's banks.list(), then payouts.create { amount: 100 } to the last bank's member_id",
    expects: 'the directory parsed strictly by the SDK; the payout made to that bank (its recipient.bank_id)',
    async run(kit) {
      const client = kit.client();
      const list = await kit.sdk('banks.list', () => client.banks.list({ refresh: true }));
      expect(list.items.length === 30, `the SDK read ${list.items.length} banks`);
      // The quoted line, used: a payout to a member of the list reaches that member (a service that answers one
      // payout to every create, a stateless mock, shows another bank).
      const bank = list.items[list.items.length - 1]!.member_id;
      const made = await kit.sdk('payouts.create', () =>
        client.payouts.create({ amount: 100, phone: PHONE, bank_id: bank, full_name: 'Kit Test' }),
      );
      expect(
        made.payout.recipient.bank_id === bank,
        `a payout to bank_id ${bank} shows recipient.bank_id ${show(made.payout.recipient.bank_id)}`,
      );
    },
  },
]);
