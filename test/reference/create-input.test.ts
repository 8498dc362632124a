import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  parseCreatePaymentInput,
  quickCreatePaymentInput,
} from '../../src/reference/domain/create-payment-input.js';
import { DomainError } from '../../src/reference/domain/errors.js';
import { parseBody } from '../../src/reference/domain/validate.js';
import { inputSchemas } from '../../src/schemas/inputs.js';
import { LIMITS } from '../../src/schemas/limits.js';

// The quick check of a POST /payments body must agree with the strict zod schema on every input: it accepts
// exactly what zod accepts (with the same output, key order included), and whatever it passes on, zod words.

const zodParse = (raw: unknown) => parseBody(inputSchemas(true).CreatePaymentInput, raw);

type Outcome = { ok: true; keys: string[]; json: string } | { ok: false; status: number; message: string };
function outcome(parse: (raw: unknown) => unknown, raw: unknown): Outcome {
  try {
    const v = parse(raw) as Record<string, unknown>;
    return { ok: true, keys: Object.keys(v), json: JSON.stringify(v) };
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { ok: false, status: err.status, message: err.message };
  }
}

// Each field is mostly valid, so that bodies with exactly one rule broken (the edges) come up often.
const mostly = <T, U>(valid: fc.Arbitrary<T>, invalid: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 6, arbitrary: valid }, { weight: 1, arbitrary: invalid });

const text = (max: number) =>
  mostly(
    fc.oneof(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('', 'x'.repeat(max), 'ё'.repeat(max)),
      fc.constant(undefined),
    ),
    fc.constantFrom('x'.repeat(max + 1), 1, null),
  );
const url = mostly(
  fc.oneof(
    fc.constantFrom(
      'https://shop.example/back',
      'http://127.0.0.1:8080/hook?x=1',
      'HTTPS://SHOP.EXAMPLE',
      `https://a.example/${'p'.repeat(LIMITS.urlMax - 18)}`,
      undefined,
    ),
    fc.webUrl(),
  ),
  fc.constantFrom(
    'ftp://shop.example/',
    'not a url',
    '',
    '/relative',
    'https://',
    `https://a.example/${'p'.repeat(LIMITS.urlMax - 17)}`,
    1,
  ),
);
const metadataKey = mostly(
  fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('k'.repeat(LIMITS.metadataKeyMax), 'constructor')),
  fc.constant('k'.repeat(LIMITS.metadataKeyMax + 1)),
);
const metadataValue = mostly(
  fc.oneof(fc.string({ maxLength: 6 }), fc.constant('v'.repeat(LIMITS.metadataValueMax))),
  fc.constantFrom('v'.repeat(LIMITS.metadataValueMax + 1), 1, null),
);
const metadata = fc.oneof(
  { weight: 4, arbitrary: fc.dictionary(metadataKey, metadataValue, { maxKeys: 4 }) },
  fc.dictionary(fc.string({ minLength: 1, maxLength: 3 }), fc.string({ maxLength: 2 }), {
    minKeys: LIMITS.metadataMaxKeys - 1,
    maxKeys: LIMITS.metadataMaxKeys + 1,
  }),
  fc.constantFrom(
    undefined,
    undefined,
    undefined,
    null,
    [],
    'a',
    1,
    JSON.parse('{"__proto__":"x"}'),
    Object.create(null),
  ),
);
const amount = mostly(
  fc.oneof(fc.integer({ min: 1, max: 2_000_000 }), fc.constantFrom(1, 2 ** 53 - 1)),
  fc.oneof(
    fc.constantFrom(0, 1.5, -1, 2 ** 53, Number.NaN, Number.POSITIVE_INFINITY, '100', null, undefined),
    fc.double(),
  ),
);

const body = fc
  .record(
    {
      amount,
      currency: mostly(
        fc.constantFrom('RUB', 'USD', 'EUR', 'XYZ', undefined),
        fc.constantFrom('rub', 'RUBL', '', 1),
      ),
      method: mostly(
        fc.constantFrom('sbp', 'cards', 'tpay', 'sberpay', 'recurrent', 'any', undefined),
        fc.constantFrom('SBP', 'cash', null),
      ),
      order_id: text(LIMITS.orderIdMax),
      customer_id: text(LIMITS.customerIdMax),
      description: text(LIMITS.descriptionMax),
      return_url: url,
      webhook_url: url,
      metadata,
      extra: mostly(fc.constant(undefined), fc.string({ maxLength: 3 })),
    },
    { requiredKeys: [] },
  )
  .chain((r) =>
    // Keys in random order, as a client may send them; `extra` is an unknown field.
    fc.shuffledSubarray(Object.keys(r), { minLength: Object.keys(r).length }).map((keys) => {
      const out: Record<string, unknown> = {};
      for (const k of keys) out[k] = (r as Record<string, unknown>)[k];
      return out;
    }),
  );
const anyInput = fc.oneof(
  { weight: 8, arbitrary: body },
  { weight: 1, arbitrary: fc.anything() },
  { weight: 1, arbitrary: fc.constantFrom(null, [], 'x', 1, JSON.parse('{"amount":1,"__proto__":{}}')) },
);

describe('the quick check of CreatePaymentInput', () => {
  it('agrees with zod on random bodies: same verdict, same output and key order, same 400 message', () => {
    fc.assert(
      fc.property(anyInput, (raw) => {
        const z = outcome(zodParse, raw);
        const quick = quickCreatePaymentInput(raw);
        // Accepts exactly what zod accepts.
        expect(quick !== undefined).toBe(z.ok);
        expect(outcome(parseCreatePaymentInput, raw)).toEqual(z);
      }),
      { numRuns: 3000 },
    );
  });

  it('accepts the typical body and keeps its values', () => {
    const raw = {
      metadata: { customer_id: 'cus_1' },
      amount: 1_250_000,
      currency: 'RUB',
      method: 'sbp',
      order_id: 'order-1',
      description: 'Order 1',
      return_url: 'https://shop.example.com/orders/1/return',
    };
    const out = quickCreatePaymentInput(raw);
    expect(out).toEqual(raw);
    expect(Object.keys(out!)).toEqual(Object.keys(zodParse(raw)));
  });

  it('passes anything doubtful to zod, which words the refusal', () => {
    for (const raw of [{ amount: 0 }, { amount: 1, extra: 1 }, { amount: 1, return_url: 'ftp://x' }]) {
      expect(quickCreatePaymentInput(raw)).toBeUndefined();
      expect(() => parseCreatePaymentInput(raw)).toThrow(DomainError);
    }
    expect(() => parseCreatePaymentInput(JSON.parse('{"amount":1,"metadata":{"__proto__":"x"}}'))).toThrow(
      'metadata: the key "__proto__" is not allowed',
    );
  });
});
