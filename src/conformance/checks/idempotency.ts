// Spec 5.6: the Idempotency-Key of the three creates.
import { CODE } from '../../schemas/errors.js';
import { expect, expectError, field } from '../assert.js';
import { group } from '../check.js';
import type { Kit, WireAnswer } from '../kit.js';
import { bankId, createPaymentRaw, expectRefunded, PHONE } from './fixtures.js';

const REPLAY =
  'Same key and same body: the earlier object is returned with HTTP 200 and `idempotent: true`; no duplicate is made.';
const key = () => `kit-${crypto.randomUUID()}`;
/** A fresh key of exactly `n` characters. */
const sized = (n: number) => `${crypto.randomUUID()}-${'k'.repeat(n)}`.slice(0, n);

/** Creates a payment with `Idempotency-Key: k` on the wire, remembering it for the clean-up. */
const create = (kit: Kit, k: string, body: Record<string, unknown>) =>
  createPaymentRaw(kit, { body, headers: { 'idempotency-key': k } });

/** Sends one create twice: 201, then 200 with `idempotent: true` and the same `resource`. */
async function expectReplay(send: () => Promise<WireAnswer>, resource: 'payment' | 'payout'): Promise<void> {
  const first = await send();
  expect(first.status === 201, `the first create: expected 201, got ${first.status}`, first);
  const second = await send();
  expect(second.status === 200, `the replay: expected 200, got ${second.status}`, second);
  expect(field(second.json, 'idempotent') === true, 'the replay lacks `idempotent: true`', second);
  const a = field(field(first.json, resource), 'id');
  const b = field(field(second.json, resource), 'id');
  expect(a === b, `the replay made another ${resource} (${String(a)} then ${String(b)})`, second);
}

/** A create of `what` with one key: 201 for amount 100, then 409 `idempotent_conflict` for 200. */
async function expectConflict(send: (amount: number) => Promise<WireAnswer>, what: 'refund' | 'payout') {
  expect((await send(100)).status === 201, `the first ${what} was not created`);
  expectError(
    await send(200),
    409,
    `a ${what} with the same key and another amount`,
    CODE.idempotent_conflict,
  );
}

export const IDEMPOTENCY_CHECKS = group('idempotency', [
  {
    id: 'payment-replay',
    section: '5.6',
    quote: REPLAY,
    sends: 'payments.create twice with one Idempotency-Key and one body (amount 100)',
    expects: '201, then 200 with `idempotent: true` and the same payment id',
    async run(kit) {
      const k = key();
      await expectReplay(() => create(kit, k, { amount: 100, order_id: 'kit-replay' }), 'payment');
    },
  },
  {
    id: 'payment-conflict',
    section: '5.6',
    quote: 'Same key and a different body: 409 `idempotent_conflict`.',
    sends: 'payments.create with one Idempotency-Key and two different amounts',
    expects: '201, then 409 `idempotent_conflict`',
    async run(kit) {
      const k = key();
      const first = await create(kit, k, { amount: 100 });
      expect(first.status === 201, `the first create: expected 201, got ${first.status}`, first);
      const second = await create(kit, k, { amount: 200 });
      expectError(second, 409, 'the same key with another body', CODE.idempotent_conflict);
    },
  },
  {
    id: 'refund-and-payout-conflict',
    section: '5.6',
    quote: 'Same key and a different body: 409 `idempotent_conflict`.',
    sends: 'payments.refund and payouts.create, each twice with one Idempotency-Key and two amounts',
    expects: '201, then 409 `idempotent_conflict`, for each; the second refund moved no money',
    async run(kit) {
      const payment = await kit.succeededPayment(1000);
      const rk = key();
      const refund = (amount: number) =>
        kit.api('payments.refund', payment.id, {
          body: { amount },
          headers: { 'idempotency-key': rk },
        });
      await expectConflict(refund, 'refund');
      await expectRefunded(kit, payment.id, 100, 'the conflicting refund moved money');
      const pk = key();
      const bank_id = await bankId(kit);
      const payout = (amount: number) =>
        kit.api('payouts.create', {
          body: { amount, phone: PHONE, bank_id },
          headers: { 'idempotency-key': pk },
        });
      await expectConflict(payout, 'payout');
    },
  },
  {
    id: 'key-length',
    section: '8',
    quote: '| Idempotency-Key length | at most 64 characters | payment, refund, payout creation |',
    sends: 'payments.create with a 64-character key, then with a 65-character one',
    expects: '201 for 64 characters; 400 for 65, nothing created',
    async run(kit) {
      const ok = await create(kit, sized(64), { amount: 100 });
      expect(ok.status === 201, `a 64-character key: expected 201, got ${ok.status}`, ok);
      const long = await create(kit, sized(65), { amount: 100 });
      expectError(long, 400, 'a 65-character key');
    },
  },
  {
    id: 'refund-replay',
    section: '5.6',
    quote:
      'Applies to payment creation, payout creation and refund creation (the header is declared on these).',
    sends: 'payments.refund twice with one Idempotency-Key (amount 100 of a succeeded 1000)',
    expects: '201, then 200 with the same refund; the payment shows one refund',
    async run(kit) {
      const payment = await kit.succeededPayment(1000);
      const k = key();
      const refund = () =>
        kit.api('payments.refund', payment.id, {
          body: { amount: 100 },
          headers: { 'idempotency-key': k },
        });
      const first = await refund();
      expect(first.status === 201, `the first refund: expected 201, got ${first.status}`, first);
      const second = await refund();
      expect(second.status === 200, `the replay: expected 200, got ${second.status}`, second);
      expect(field(first.json, 'id') === field(second.json, 'id'), 'the replay made another refund', second);
      await expectRefunded(kit, payment.id, 100, 'the replay refunded the amount again');
    },
  },
  {
    id: 'payout-replay',
    section: '5.6',
    quote: REPLAY,
    sends: 'payouts.create twice with one Idempotency-Key and one body (amount 100)',
    expects: '201, then 200 with `idempotent: true` and the same payout id',
    async run(kit) {
      const k = key();
      const body = { amount: 100, phone: PHONE, bank_id: await bankId(kit) };
      await expectReplay(
        () => kit.api('payouts.create', { body, headers: { 'idempotency-key': k } }),
        'payout',
      );
    },
  },
  {
    id: 'sdk-retry-once',
    section: '5.6',
    quote: REPLAY,
    sends:
      "the SDK's payments.create with its own Idempotency-Key, the same call repeated with that key, then once with another key",
    expects: 'one payment per key: the repeat answers the same id, the other key a new one',
    async run(kit) {
      const client = kit.client();
      const k = key();
      const a = await kit.sdk('payments.create', () =>
        client.payments.create({ amount: 100, order_id: 'kit-sdk' }, { idempotencyKey: k }),
      );
      kit.payments.set(a.payment.id, { key: kit.apiKey, secret: kit.signingSecret });
      const b = await kit.sdk('payments.create (repeat)', () =>
        client.payments.create({ amount: 100, order_id: 'kit-sdk' }, { idempotencyKey: k }),
      );
      expect(a.payment.id === b.payment.id, 'the repeated create made a second payment');
      expect(b.idempotent === true, 'the repeated create lacks `idempotent: true`');
      // A service that answers the same payment to every create (a stateless mock) is not idempotent: it is deaf.
      const c = await kit.sdk('payments.create (another key)', () =>
        client.payments.create({ amount: 100, order_id: 'kit-sdk' }, { idempotencyKey: key() }),
      );
      kit.payments.set(c.payment.id, { key: kit.apiKey, secret: kit.signingSecret });
      expect(
        c.payment.id !== a.payment.id,
        'a create with another Idempotency-Key answered the same payment',
      );
      expect(c.idempotent !== true, 'a create with a new Idempotency-Key answered `idempotent: true`');
    },
  },
]);
