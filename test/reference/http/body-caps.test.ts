// Each public route's byte cap is the largest valid body of its row's input (src/reference/http/body-caps.ts):
// no valid request is refused for its size, written as generously as a client may (every character an escaped
// surrogate pair, pretty-printed), and anything larger is refused by its length (issue 40, N4).
import { afterEach, describe, expect, it } from 'vitest';
import { bodyCapOf } from '../../../src/reference/http/body-caps.js';
import { NO_BODY_MAX_BYTES } from '../../../src/reference/http/body.js';
import { DEFAULTS } from '../../../src/reference/domain/defaults.js';
import { LIMITS } from '../../../src/schemas/limits.js';
import { OPERATIONS, type OperationName, type OperationRow } from '../../../src/schemas/operations.js';
import { expectError, payoutInput, setup } from '../helpers.js';

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

const NAMES = Object.keys(OPERATIONS) as OperationName[];
const emoji = (n: number) => '😀'.repeat(n);
/** JSON as an ASCII-only encoder writes it, pretty-printed: the largest form of a value. */
const asciiJson = (value: unknown) =>
  JSON.stringify(value, null, 8).replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );

describe('a route body cap from its schema', () => {
  it.each(NAMES)('%s: within the API 1 MiB, 1 KiB for a row without an input', (name) => {
    const row: OperationRow = OPERATIONS[name];
    const cap = bodyCapOf(name);
    expect(cap).toBeLessThanOrEqual(DEFAULTS.maxBodyBytes);
    if (!row.input) expect(cap).toBe(NO_BODY_MAX_BYTES);
    else expect(cap).toBeGreaterThan(NO_BODY_MAX_BYTES);
  });

  it('takes the largest payment a client can write, and refuses one byte more than the cap by its length', async () => {
    env = setup();
    const url = `https://shop.test/${'a'.repeat(LIMITS.urlMax - 18)}`;
    const largest = asciiJson({
      amount: Number.MAX_SAFE_INTEGER,
      currency: 'RUB',
      method: 'any',
      order_id: emoji(LIMITS.orderIdMax),
      customer_id: emoji(LIMITS.customerIdMax),
      return_url: url,
      description: emoji(LIMITS.descriptionMax),
      webhook_url: url,
      metadata: Object.fromEntries(
        Array.from({ length: LIMITS.metadataMaxKeys }, (_, i) => [
          `${String(i).padStart(2, '0')}${emoji(LIMITS.metadataKeyMax - 2)}`,
          emoji(LIMITS.metadataValueMax),
        ]),
      ),
    });
    const cap = bodyCapOf('payments.create');
    expect(largest.length).toBeLessThanOrEqual(cap);
    expect((await env.call('/payments', { raw: largest })).status).toBe(201);
    const over = `{"amount":100}${' '.repeat(cap - 13)}`;
    expect(over.length).toBe(cap + 1);
    const r = await env.call('/payments', { raw: over });
    expectError(r, 400, 'bad_request');
    expect(r.body.error.message).toBe(`Payload too large: the request body is larger than ${cap} bytes.`);
  });

  it('takes the largest refund and payout a client can write', async () => {
    env = setup();
    const { payment } = await env.createPayment({ amount: 10_000 });
    await env.ref.control.succeedPayment(payment.id);
    const refund = asciiJson({ amount: 100, reason: emoji(LIMITS.reasonMax) });
    expect(refund.length).toBeLessThanOrEqual(bodyCapOf('payments.refund'));
    expect((await env.call(`/payments/${payment.id}/refund`, { raw: refund })).status).toBe(201);
    const payout = asciiJson(
      payoutInput({ currency: 'RUB', method: 'payouts_sbp', full_name: emoji(LIMITS.fullNameMax) }),
    );
    expect(payout.length).toBeLessThanOrEqual(bodyCapOf('payouts.create'));
    expect((await env.call('/payouts', { raw: payout })).status).toBe(201);
  });
});
