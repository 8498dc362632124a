import { describe, expect, it } from 'vitest';
import { formatFieldIssues, inputSchemas, responseSchemas, toFieldIssues } from '../src/schemas/index.js';

describe('schemas', () => {
  it('names every bad field of a payment input', () => {
    const r = inputSchemas(true).CreatePaymentInput.safeParse({ amount: 0, currency: 'rub', bogus: 1 });
    expect(r.success).toBe(false);
    const msg = formatFieldIssues(toFieldIssues(r.error!.issues));
    expect(msg).toContain('amount: must be at least 1');
    expect(msg).toContain('currency:');
    expect(msg).toContain('unknown field "bogus"');
  });

  it('rejects amounts beyond the safe-integer range', () => {
    const r = inputSchemas().CreatePayoutInput.safeParse({
      amount: 2 ** 53,
      phone: '+79991234567',
      bank_id: '100000000111',
    });
    expect(r.success).toBe(false);
  });

  it('lets the SDK send fields the server may add later, but not the reference accept them', () => {
    expect(inputSchemas().CreatePaymentInput.safeParse({ amount: 1, future: 'x' }).success).toBe(true);
    expect(inputSchemas(true).CreatePaymentInput.safeParse({ amount: 1, future: 'x' }).success).toBe(false);
  });

  it('tolerates unknown fields and enum values in responses unless strict', () => {
    const body = { id: 'a', status: 'on_hold', new_field: 1 };
    expect(responseSchemas().Payment.safeParse(body).success).toBe(true);
    expect(responseSchemas(true).Payment.safeParse(body).success).toBe(false);
  });
});
