import { describe, expect, it } from 'vitest';
import { PspResponseError, PspValidationError } from '../../src/index.js';
import { client, json, PAYMENT_ID, payment, refund, stubFetch } from './helpers.js';

// The rules the schemas state without zod's record, enum, array and primitive builders (kept out of the client
// bundle): each still names the field, and tolerant parsing still hands unknown fields to the caller.

async function validationError(p: Promise<unknown>): Promise<PspValidationError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PspValidationError);
  return err as PspValidationError;
}

describe('input rules', () => {
  const { fetch, seen } = stubFetch(() => json({}));
  const c = client(fetch);

  it('metadata: names the bad key, and says what is wrong with it', async () => {
    const long = 'k'.repeat(41);
    const e = await validationError(
      c.payments.create({
        amount: 100,
        metadata: { [long]: 'x', n: 1 as unknown as string, v: 'v'.repeat(501) },
      }),
    );
    expect(e.issues).toEqual(
      expect.arrayContaining([
        { field: `metadata.${long}`, message: 'keys must be at most 40 characters' },
        { field: 'metadata.n', message: 'values must be strings' },
        { field: 'metadata.v', message: 'values must be at most 500 characters' },
      ]),
    );
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    const e2 = await validationError(c.payments.create({ amount: 100, metadata: many }));
    expect(e2.issues).toEqual([{ field: 'metadata', message: 'must have at most 50 keys' }]);
    for (const bad of ['x', [], new Map(), null]) {
      const e3 = await validationError(c.payments.create({ amount: 100, metadata: bad as never }));
      expect(e3.issues).toEqual([{ field: 'metadata', message: 'must be an object of string values' }]);
    }
    expect(seen).toHaveLength(0);
  });

  it('enums, lengths, formats and minimums keep their messages', async () => {
    const e = await validationError(
      c.payouts.create({
        amount: 0,
        phone: '89001234567',
        bank_id: '1',
        method: 'sbp' as never,
        full_name: 'x'.repeat(257),
      }),
    );
    expect(e.issues).toEqual(
      expect.arrayContaining([
        { field: 'amount', message: 'must be at least 1' },
        { field: 'phone', message: 'must be +7 followed by exactly 10 digits' },
        { field: 'bank_id', message: 'must be exactly 12 digits (an SBP member_id)' },
        { field: 'method', message: 'must be one of payouts_sbp' },
        { field: 'full_name', message: 'must be at most 256 characters' },
      ]),
    );
    const e2 = await validationError(c.payments.refund(PAYMENT_ID, { amount: -1 }));
    expect(e2.issues).toEqual([{ field: 'amount', message: 'must not be negative' }]);
    const e3 = await validationError(c.payments.create({ amount: 1, currency: 5 as never }));
    expect(e3.issues).toEqual([{ field: 'currency', message: 'must be a string' }]);
    expect(seen).toHaveLength(0);
  });
});

describe('response rules', () => {
  it('tolerant mode hands out the answer as sent, unknown fields included', async () => {
    const body = payment({ future_field: { nested: true }, status: 'on_hold', rrn: null });
    const { fetch } = stubFetch(() => json(body));
    const got = await client(fetch).payments.get(PAYMENT_ID);
    expect(got).toEqual(body);
    expect((got as unknown as Record<string, unknown>).future_field).toEqual({ nested: true });
  });

  it('strict mode names a bad element of an array by its index', async () => {
    const body = payment({ refunds: [refund(), refund({ status: 'lost', amount: 1.5 })] });
    const { fetch } = stubFetch(() => json(body));
    const err = await client(fetch, { strict: true })
      .payments.get(PAYMENT_ID)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(PspResponseError);
    const fields = (err as PspResponseError).issues.map((i) => i.field).sort();
    expect(fields).toEqual(['refunds.1.amount', 'refunds.1.status']);
    expect((err as PspResponseError).message).toContain(
      'refunds.1.status: must be one of pending, succeeded, failed',
    );
  });

  it('strict mode refuses a field that is not an array where the spec has one', async () => {
    const { fetch } = stubFetch(() => json(payment({ refunds: {} })));
    const err = await client(fetch, { strict: true })
      .payments.get(PAYMENT_ID)
      .catch((e: unknown) => e);
    expect((err as PspResponseError).issues).toEqual([{ field: 'refunds', message: 'must be an array' }]);
  });
});
