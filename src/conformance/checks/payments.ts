// Spec 2.1-2.3, 3.1, 4.1-4.3: payments, their inputs, answers, refusals and transitions.
import { CODE } from '../../schemas/errors.js';
import { parseOwn, toFieldIssues } from '../../schemas/issues.js';
import { responseSchemas } from '../../schemas/resources.js';
import { expect, expectError, expectStatus, field } from '../assert.js';
import { group } from '../check.js';
import { type WireAnswer, type Kit, show } from '../kit.js';
import { createPaymentRaw, expectPlanned } from './fixtures.js';

const S = responseSchemas(true);

/** The answer parses with the SDK's strict schema `name` (spec section 2): every field and value the spec lists. */
export function expectShape(answer: WireAnswer, name: keyof typeof S, what: string): void {
  const parsed = parseOwn(S[name], answer.json);
  const issue = parsed.success ? undefined : toFieldIssues(parsed.error.issues)[0];
  expect(
    parsed.success,
    `${what} is not a ${name} of spec 2: ${issue ? `${issue.field}: ${issue.message}` : ''}`,
    answer,
  );
}

const createRaw = (kit: Kit, body: unknown): Promise<WireAnswer> => createPaymentRaw(kit, { body });

const BAD_INPUTS: Array<[string, unknown]> = [
  ['amount 0', { amount: 0 }],
  ['no amount', { order_id: 'kit' }],
  ['a fractional amount', { amount: 10.5 }],
  ['an amount as a string', { amount: '100' }],
  ['an unknown method', { amount: 100, method: 'cash' }],
  ['a return_url that is not a URI', { amount: 100, return_url: 'not a url' }],
  ['a metadata value that is not a string', { amount: 100, metadata: { n: 1 } }],
];

export const PAYMENT_CHECKS = group('payments', [
  {
    id: 'create',
    section: '4.1',
    quote: '201: CreatePaymentResponse, payment created.',
    sends: 'payments.create { amount: 150, order_id, metadata, return_url }',
    expects:
      '201 CreatePaymentResponse: payment pending with the amount, currency RUB, method any, amount_refunded 0, the order and metadata; payment_url; mode test',
    async run(kit) {
      const body = {
        amount: 150,
        order_id: 'kit-create',
        metadata: { kit: 'contract' },
        return_url: 'https://shop.example/return',
      };
      const res = await createRaw(kit, body);
      expectStatus(res, 201, 'a valid create');
      expectShape(res, 'CreatePaymentResponse', 'the answer');
      const json = res.json as { payment: Record<string, unknown>; payment_url: string; mode: string };
      const p = json.payment;
      const want: Record<string, unknown> = {
        status: 'pending',
        amount: 150,
        currency: 'RUB',
        method: 'any',
        amount_refunded: 0,
        order_id: 'kit-create',
        return_url: body.return_url,
      };
      for (const [name, value] of Object.entries(want))
        expect(p[name] === value, `payment.${name} is ${show(p[name])}, expected ${show(value)}`, res);
      expect(field(p.metadata, 'kit') === 'contract', 'metadata did not come back', res);
      expect(/^https?:\/\//.test(json.payment_url), 'payment_url is not a URL', res);
      expect(json.mode === 'test', `mode is ${show(json.mode)} for a test key`, res);
      expect(
        /^[\da-f]{8}-[\da-f]{4}-4[\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/.test(String(p.id)),
        'payment.id is not a UUIDv4',
        res,
      );
    },
  },
  {
    id: 'create-refusals',
    section: '2.2',
    quote: '| amount | integer int64 | R | minimum 1, minor units |',
    sends: `payments.create with ${BAD_INPUTS.map(([what]) => what).join('; ')}; no body; a body that is not JSON`,
    expects: '400 `bad_request` with the error body for each',
    async run(kit) {
      for (const [what, body] of BAD_INPUTS)
        expectError(await createRaw(kit, body), 400, what, CODE.bad_request);
      expectError(await kit.api('payments.create'), 400, 'no body', CODE.bad_request);
      expectError(await createRaw(kit, '{"amount": 1'), 400, 'a body that is not JSON', CODE.bad_request);
    },
  },
  {
    id: 'minimum-amount',
    section: '8',
    quote: '| amount | minimum 1 minor unit | payment and payout creation |',
    sends: 'payments.create { amount: 1 }',
    expects: '201',
    async run(kit) {
      expectStatus(await createRaw(kit, { amount: 1 }), 201, 'amount 1');
    },
  },
  {
    id: 'get',
    section: '4.2',
    quote: '200: Payment with current status, the list of refunds and customer info.',
    sends: 'payments.get of a payment just created',
    expects: '200 Payment: the same id, amount and status, `refunds` a list',
    async run(kit) {
      const made = await kit.createPayment({ amount: 120, order_id: 'kit-get' });
      const res = await kit.api('payments.get', made.id);
      expectStatus(res, 200, 'GET of a payment');
      expectShape(res, 'Payment', 'the answer');
      expect(field(res.json, 'id') === made.id, 'GET answered another payment', res);
      expect(field(res.json, 'amount') === 120, 'GET answered another amount', res);
      expect(Array.isArray(field(res.json, 'refunds')), 'refunds is not a list', res);
    },
  },
  {
    id: 'cancel',
    section: '4.3',
    quote: '200: `{ status: "cancelled" }` (status string). Sends webhook `payment.cancelled`.',
    sends: 'payments.cancel of a pending payment, then payments.get of it',
    expects: '200 { status: "cancelled" }; the payment is then cancelled',
    async run(kit) {
      const made = await kit.createPayment({ amount: 130, order_id: 'kit-cancel' });
      const res = await kit.api('payments.cancel', made.id);
      expectStatus(res, 200, 'cancel of a pending payment');
      expect(field(res.json, 'status') === 'cancelled', 'cancel did not answer { status: "cancelled" }', res);
      const after = await kit.api('payments.get', made.id);
      expect(field(after.json, 'status') === 'cancelled', 'the payment is not cancelled after cancel', after);
    },
  },
  {
    id: 'cancel-not-pending',
    section: '4.3',
    quote: '409: payment is not in status pending (example code `not_pending`).',
    sends: 'payments.cancel of a cancelled payment, and of a succeeded one',
    expects: '409 `not_pending` for both; the status unchanged',
    async run(kit) {
      const made = await kit.createPayment({ amount: 140, order_id: 'kit-cancel-twice' });
      expectStatus(await kit.api('payments.cancel', made.id), 200, 'the first cancel');
      const again = await kit.api('payments.cancel', made.id);
      expectError(again, 409, 'cancel of a cancelled payment', CODE.not_pending);
      const paid = await kit.succeededPayment(160);
      const late = await kit.api('payments.cancel', paid.id);
      expectError(late, 409, 'cancel of a succeeded payment', CODE.not_pending);
      const after = await kit.api('payments.get', paid.id);
      expect(field(after.json, 'status') === 'succeeded', 'a refused cancel changed the status', after);
    },
  },
  {
    id: 'buyer-pays',
    section: '3.1',
    quote: '| (not stated) | bank confirms payment | | succeeded | webhook `payment.succeeded` |',
    sends: 'payments.create (amount 1000, planned outcome succeeded), then the buyer pays on payment_url',
    expects: 'the payment becomes succeeded, with captured_at and customer info',
    async run(kit) {
      const made = await kit.createPayment({ amount: 1000, order_id: 'kit-pay' });
      expectPlanned(kit, made.simulator, 'succeeded', 1000);
      await kit.pay(made);
      const res = await kit.until(
        'the paid payment did not become succeeded',
        () => kit.api('payments.get', made.id),
        (r) => field(r.json, 'status') === 'succeeded',
      );
      expect(
        typeof field(res.json, 'captured_at') === 'string',
        'a succeeded payment has no captured_at',
        res,
      );
      const customer = [
        'customer_phone_mask',
        'customer_payer_bank',
        'customer_card_mask',
        'customer_card_brand',
      ];
      expect(
        customer.some((name) => typeof field(res.json, name) === 'string'),
        'a succeeded payment shows no customer info (spec 4.2)',
        res,
      );
    },
  },
  {
    id: 'bank-declines',
    section: '3.1',
    quote: '| (not stated) | bank rejects payment | no money debited | failed | webhook `payment.failed` |',
    sends: 'payments.create with amount 1901 (planned outcome failed), then the buyer pays',
    expects: '`simulator: "failed"`; the payment becomes failed',
    async run(kit) {
      const made = await kit.createPayment({ amount: 1901, order_id: 'kit-fail' });
      expectPlanned(kit, made.simulator, 'failed', 1901);
      await kit.pay(made);
      await kit.until(
        'the declined payment did not become failed',
        () => kit.api('payments.get', made.id),
        (r) => field(r.json, 'status') === 'failed',
      );
    },
  },
  {
    id: 'refused-at-creation',
    section: '2.3',
    quote: '| failure_code | string | no | present on a synchronous refusal |',
    sends: 'payments.create with amount 1902 (planned outcome: refused at creation)',
    expects: '201 with the payment failed, `failure_code` and `failure_message`',
    async run(kit) {
      const res = await createRaw(kit, { amount: 1902, order_id: 'kit-refused' });
      expectStatus(res, 201, 'a refused create');
      if (field(field(res.json, 'payment'), 'status') !== 'failed')
        expectPlanned(kit, field(res.json, 'simulator'), 'a refusal at creation', 1902);
      expectShape(res, 'CreatePaymentResponse', 'the answer');
      expect(typeof field(res.json, 'failure_code') === 'string', 'no failure_code on a refusal', res);
      expect(typeof field(res.json, 'failure_message') === 'string', 'no failure_message on a refusal', res);
      expect(
        field(field(res.json, 'payment'), 'status') === 'failed',
        'a refused payment is not failed',
        res,
      );
    },
  },
]);
