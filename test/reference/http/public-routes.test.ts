// A public route reads its id, the merchant's block, the Idempotency-Key and the body by its row of the table of
// operations (src/schemas/operations.ts), never by hand (issue 35 item 1): each row is driven here by what the
// row says, so a handler that reads one by hand where the row says otherwise, or forgets one, fails its row.
import { afterEach, describe, expect, it } from 'vitest';
import { createReference, type Reference } from '../../../src/reference/service.js';
import {
  OPERATIONS,
  type OperationName,
  type OperationRow,
  pathOf,
} from '../../../src/schemas/operations.js';

const PUBLIC = 'http://ref.test/api/v1/public';
const NAMES = Object.keys(OPERATIONS) as OperationName[];

let ref: Reference | undefined;
afterEach(async () => {
  await ref?.close();
  ref = undefined;
});

interface Answer {
  status: number;
  code: string | undefined;
  message: string | undefined;
}

/** A reference with one payment and one payout, and a call of one operation that reads no more than the error. */
async function lab() {
  ref = createReference({ clock: 'manual' });
  const r = ref;
  const send = async (name: OperationName, o: { id?: string; body?: string; key?: string } = {}) => {
    const row: OperationRow = OPERATIONS[name];
    const headers: Record<string, string> = { authorization: `Bearer ${r.api_key}` };
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    if (o.key !== undefined) headers['idempotency-key'] = o.key;
    const res = await r.fetch(
      new Request(`${PUBLIC}${pathOf(name, o.id ?? ids[(row.id ?? 'payment') as keyof typeof ids])}`, {
        method: row.method,
        headers,
        body: o.body,
      }),
    );
    // The event stream's body never ends: only an error's is read.
    if (res.status < 400) {
      await res.body?.cancel();
      return { status: res.status, code: undefined, message: undefined } satisfies Answer;
    }
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    return { status: res.status, code: error.code, message: error.message } satisfies Answer;
  };
  const call = (path: string, body: unknown) =>
    r.fetch(
      new Request(`${PUBLIC}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${r.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  const payment = (await (await call('/payments', { amount: 1000 })).json()) as { payment: { id: string } };
  const payout = (await (
    await call('/payouts', { amount: 500, phone: '+79991234567', bank_id: '100000000111' })
  ).json()) as { payout: { id: string } };
  const ids = { payment: payment.payment.id, payout: payout.payout.id };
  return { r, send };
}

// A body each input schema takes, so that only the rule under test can refuse a call.
const GOOD_BODY: Record<string, string> = {
  CreatePaymentInput: '{"amount":1000}',
  CreateRefundInput: '{"amount":100}',
  CreatePayoutInput: '{"amount":500,"phone":"+79991234567","bank_id":"100000000111"}',
};
const goodBody = (row: OperationRow) => (row.input ? GOOD_BODY[row.input] : undefined);

describe('a public route takes what its row says it takes (src/schemas/operations.ts), before its handler', () => {
  it('has a body to send for every input schema of the table', () => {
    const rows: OperationRow[] = Object.values(OPERATIONS);
    const inputs = [...new Set(rows.flatMap((row) => row.input ?? []))];
    expect(Object.keys(GOOD_BODY).sort()).toEqual(inputs.sort());
  });

  it.each(NAMES)('%s: reads the Idempotency-Key only when its row is idempotent', async (name) => {
    const row: OperationRow = OPERATIONS[name];
    const { send } = await lab();
    const bad = await send(name, { key: 'k'.repeat(65), body: goodBody(row) });
    if (row.idempotent) {
      expect([bad.status, bad.code], bad.message).toEqual([400, 'bad_request']);
      expect(bad.message).toMatch(/^Idempotency-Key/);
    } else expect(bad.message ?? '').not.toMatch(/Idempotency-Key/);
  });

  // A GET's body is refused by section 5 before any route (body.ts): the rule here is a POST's.
  const POSTS = NAMES.filter((name) => OPERATIONS[name].method !== 'GET');
  it.each(POSTS)('%s: takes a JSON body, an optional one or none, as its row says', async (name) => {
    const row: OperationRow = OPERATIONS[name];
    const { send } = await lab();
    const none = await send(name);
    const empty = await send(name, { body: '{}' });
    const some = await send(name, { body: '{"x":1}' });
    const required = /A JSON request body is required/;
    if (!row.input) {
      // Not refused for its body (a second cancel of the one payment is 409: the body was taken).
      for (const answer of [none, empty]) expect(answer.status, answer.message).not.toBe(400);
      expect([some.status, some.message]).toEqual([400, 'This endpoint takes no request body.']);
      return;
    }
    expect(none.message ?? '', 'a missing body').toMatch(
      row.inputOptional ? /^(?!A JSON request body)/ : required,
    );
    // A body is read as the row's input: an unknown field is refused by its schema.
    expect([some.status, some.code], some.message).toEqual([400, 'bad_request']);
    expect(some.message).not.toMatch(required);
  });

  const WITH_ID = NAMES.filter((name) => (OPERATIONS[name] as OperationRow).id);
  it.each(WITH_ID)("%s: checks the path's id, naming what its row says it names", async (name) => {
    const row: OperationRow = OPERATIONS[name];
    const { send } = await lab();
    const answer = await send(name, { id: 'not-a-uuid', body: goodBody(row) });
    expect([answer.status, answer.code]).toEqual([404, 'not_found']);
    expect(answer.message).toContain(`No ${row.id} with id "not-a-uuid"`);
  });

  it.each(NAMES)(
    '%s: refuses a blocked merchant, before the body, only when its row moves money',
    async (name) => {
      const row: OperationRow = OPERATIONS[name];
      const { r, send } = await lab();
      r.control.updateMerchant(r.merchant_id, { block: 'aml_blocked' });
      // A body the row refuses: the block is answered first.
      const answer = await send(name, { body: row.method === 'GET' ? undefined : '{"x":1}' });
      if (row.movesMoney) expect([answer.status, answer.code], answer.message).toEqual([403, 'aml_blocked']);
      else expect(answer.code).not.toBe('aml_blocked');
    },
  );
});
