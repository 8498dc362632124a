// Issue 43 item 2: tenancy from the table. For every operation of the table of operations that takes an id, the
// object is made as merchant A and asked for (and acted on) as merchant B: the spec's 404, and A's object unchanged.
// The ids' kinds come from the rows, so a new operation with an id is tried without a line here. (The cabinet and
// simulator routes under a merchant admin token: test/reference/scoped-token.test.ts.)
import { afterEach, describe, expect, it } from 'vitest';
import { OPERATIONS, type OperationName, type OperationRow, pathOf } from '../../src/schemas/operations.js';
import { objectMaker } from '../support/object-maker.js';
import { BASE, expectError, setup } from './helpers.js';

type Env = ReturnType<typeof setup>;
let env: Env | undefined;
afterEach(() => env?.ref.close());

const withId = (Object.entries(OPERATIONS) as Array<[OperationName, OperationRow]>).filter(
  ([, row]) => row.id,
);

/** Makes an object of `kind` as the merchant of `key`, with the contract kit's makers (test/support/object-maker.ts). */
const make = (e: Env, key: string, kind: string) =>
  objectMaker((input, init) => e.ref.fetch(new Request(input, init)), BASE, key)(kind);

/** What merchant A sees of its object: the read of its kind (the row that GETs an object of that kind). */
async function seenByA(e: Env, kind: string, id: string, key: string) {
  const read = withId.find(([, row]) => row.method === 'GET' && row.id === kind);
  expect(read, `no operation reads a ${kind}`).toBeDefined();
  const r = await e.call(pathOf(read![0], id), { key });
  expect(r.status).toBe(200);
  return r.body;
}

describe("another merchant's objects, for every operation that takes an id", () => {
  it('covers every row with an id', () => {
    expect(withId.map(([name]) => name)).toEqual(
      expect.arrayContaining(['payments.get', 'payments.cancel', 'payments.refund', 'payouts.get']),
    );
  });

  it.each(withId.map(([name, row]) => [name, row] as const))(
    "%s as merchant B on merchant A's object: 404 not_found, and A's object unchanged",
    async (name, row) => {
      env = setup();
      const e = env;
      const a = await e.ref.control.createMerchant({ name: 'A' });
      const b = await e.ref.control.createMerchant({ name: 'B' });
      const kind = row.id!;
      const id = await make(e, a.api_key, kind);
      const before = await seenByA(e, kind, id, a.api_key);
      const body = row.input ? (row.inputOptional ? {} : { amount: 100 }) : undefined;
      const r = await e.call(pathOf(name, id), {
        key: b.api_key,
        method: row.method,
        ...(body === undefined ? {} : { body }),
      });
      expectError(r, 404, 'not_found');
      expect(r.text).not.toContain(a.merchant_id);
      expect(await seenByA(e, kind, id, a.api_key)).toEqual(before);
      // The same request with A's key finds the object (a cancel of a succeeded payment is 409, not 404): the 404
      // was about the owner, not the request.
      const own = await e.call(pathOf(name, id), {
        key: a.api_key,
        method: row.method,
        ...(body === undefined ? {} : { body }),
      });
      expect(own.status, own.text).not.toBe(404);
    },
  );
});
