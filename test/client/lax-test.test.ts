import fc from 'fast-check';
import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { PspResponseError } from '../../src/index.js';
import { laxTest, str } from '../../src/schemas/common.js';
import { inputSchemas } from '../../src/schemas/inputs.js';
import { responseSchemas } from '../../src/schemas/resources.js';
import {
  BANKS,
  client,
  createPaymentResponse,
  json,
  PAYMENT_ID,
  payment,
  payout,
  refund,
  stubFetch,
} from './helpers.js';

// Tolerant mode accepts an answer when laxTest says so and asks zod only otherwise: the two must agree on every
// value, or the client hands out what zod would have refused (or reports drift that zod would have passed).

type Json = unknown;
type Path = (string | number)[];

const richPayment = payment({
  metadata: { order: 'A-1042', note: '' },
  refunds: [refund(), refund({ reason: 'partial', completed_at: null })],
  amount_usdt: 31.5,
});
const SAMPLES: Record<string, Json> = {
  Payment: richPayment,
  Refund: refund(),
  Payout: payout(),
  CreatePaymentResponse: createPaymentResponse({ payment: richPayment, idempotent: true, bank: 'sber' }),
  CreatePayoutResponse: { payout: payout(), mode: 'test', idempotent: false },
  CancelPaymentResponse: { status: 'cancelled' },
  BankList: BANKS,
  SBPBank: BANKS.items[0],
  ErrorBody: { error: { code: 'not_found', message: 'no such payment' } },
};

/** Every path inside `v` (the root is `[]`), objects' keys and arrays' indices. */
function paths(v: Json, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, Array.isArray(v) ? Number(k) : k]));
  }
  return out;
}

type Mutation = { path: number; op: 'set' | 'delete' | 'extra'; value: Json; key: string };

function apply(root: Json, m: Mutation): Json {
  const all = paths(root);
  const path = all[m.path % all.length] as Path;
  if (path.length === 0) return m.op === 'set' ? m.value : root;
  const copy = structuredClone(root) as Record<string | number, Json>;
  let parent = copy;
  for (const k of path.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
  const last = path[path.length - 1] as string | number;
  if (m.op === 'set') parent[last] = m.value;
  else if (m.op === 'delete') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (!Array.isArray(parent)) parent[m.key] = m.value;
  return copy;
}

// Wrong types, edge numbers, nulls and shapes of every kind, plus any JSON value.
const value = fc.oneof(
  fc.constantFrom<Json>(
    null,
    undefined,
    Number.NaN,
    Number.POSITIVE_INFINITY,
    1.5,
    2 ** 53,
    -1,
    0,
    '',
    'x',
    true,
    false,
    [],
    {},
    [1],
    ['x'],
    { a: 1 },
    { a: null },
    Object.create(null),
    [refund()],
    [{ member_id: 1 }],
  ),
  fc.jsonValue({ maxDepth: 2 }),
);
const mutationOf = (v: fc.Arbitrary<Json>) =>
  fc.record({
    path: fc.nat(),
    op: fc.constantFrom<Mutation['op']>('set', 'set', 'delete', 'extra'),
    value: v,
    key: fc.constantFrom('extra', 'id', 'amount', '__proto__', 'constructor'),
  });
const mutation = mutationOf(value);

describe('laxTest (the tolerant fast path)', () => {
  const schemas = responseSchemas(false);

  for (const [name, sample] of Object.entries(SAMPLES)) {
    it(`${name}: accepts exactly what the tolerant zod schema accepts, on random mutations`, () => {
      const schema = schemas[name as keyof typeof schemas];
      expect(laxTest(schema)(sample)).toBe(true);
      fc.assert(
        fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (ms) => {
          const v = ms.reduce(apply, sample);
          expect(laxTest(schema)(v)).toBe(schema.safeParse(v).success);
        }),
        { numRuns: 1500 },
      );
    });
  }

  const inputs = inputSchemas(false);
  const INPUTS: Record<keyof typeof inputs, Json> = {
    CreatePaymentInput: {
      amount: 1_250_000,
      currency: 'RUB',
      method: 'sbp',
      order_id: 'order-1',
      customer_id: 'cus_1',
      description: 'Order 1',
      return_url: 'https://shop.example.com/return',
      webhook_url: 'http://127.0.0.1:9/hook',
      metadata: { customer_id: 'cus_1' },
    },
    CreateRefundInput: { amount: 500, reason: 'partial' },
    CreatePayoutInput: {
      amount: 50_000,
      currency: 'RUB',
      phone: '+79001234567',
      bank_id: '100000000111',
      full_name: 'A B',
    },
  };
  // Values that sit on the input rules' edges: lengths, URLs, patterns, amounts, metadata sizes.
  const edge = fc.oneof(
    value,
    fc.constantFrom<Json>(
      'x'.repeat(65),
      'x'.repeat(256),
      'x'.repeat(2049),
      'ftp://x',
      'https://',
      'http://a b',
      'rub',
      'USD',
      'card',
      '+7900123456',
      '10000000011',
      0,
      -0,
      2 ** 53 + 2,
      { ['k'.repeat(41)]: 'v' },
      { k: 'v'.repeat(501) },
      Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
    ),
  );
  for (const [name, sample] of Object.entries(INPUTS)) {
    it(`${name} (loose input): accepts exactly what zod accepts, on random mutations`, () => {
      const schema = inputs[name as keyof typeof inputs];
      expect(laxTest(schema)(sample)).toBe(true);
      fc.assert(
        fc.property(fc.array(mutationOf(edge), { minLength: 1, maxLength: 3 }), (ms) => {
          const v = ms.reduce(apply, sample);
          expect(laxTest(schema)(v)).toBe(schema.safeParse(v).success);
        }),
        { numRuns: 1500 },
      );
    });
  }

  it('reads optional, nullable and missing keys as zod does, and hands other kinds to zod', () => {
    const schema = z.object({
      a: z.nullable(str()),
      b: z.optional(str()),
      c: z.custom<unknown>(() => true),
      d: z.optional(z.string().check(z.minLength(2))),
    });
    const cases: Json[] = [
      { a: null, c: 1 },
      { a: 'x', b: 'y', c: undefined },
      { a: undefined, c: 1 },
      { c: 1 },
      { a: null, b: null, c: 1 },
      { a: null },
      { a: null, c: 1, d: 'x' },
      { a: null, c: 1, d: 'xy' },
      { a: null, c: 1, d: 1 },
    ];
    for (const v of cases) expect([v, laxTest(schema)(v)]).toEqual([v, schema.safeParse(v).success]);
  });

  it('is built once per schema', () => {
    expect(laxTest(schemas.Payment)).toBe(laxTest(schemas.Payment));
  });
});

describe('tolerant and strict answers through the client', () => {
  it('tolerant: a drifted answer still gets zod’s message; an accepted one is the value as sent', async () => {
    const answer = payment({ extra: { nested: true }, status: 'brand_new_status', rrn: undefined });
    const { fetch } = stubFetch(() => json(answer));
    const got = await client(fetch).payments.get(PAYMENT_ID);
    expect(got).toEqual(JSON.parse(JSON.stringify(answer)));

    const bad = stubFetch(() => json(payment({ amount: '100', refunds: [refund({ amount: 1.5 })] })));
    const err = await client(bad.fetch)
      .payments.get(PAYMENT_ID)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspResponseError);
    expect((err as PspResponseError).message).toBe(
      'Unexpected payment in the response (HTTP 200): amount: must be a safe integer; refunds.0.amount: must be a safe integer',
    );
  });

  it('strict: an unknown field still fails (the fast path is tolerant mode only)', async () => {
    const { fetch } = stubFetch(() => json(payment({ extra: 1 })));
    const err = await client(fetch, { strict: true })
      .payments.get(PAYMENT_ID)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PspResponseError);
  });
});
