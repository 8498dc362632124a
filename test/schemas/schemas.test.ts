import { describe, expect, it } from 'vitest';
import {
  codePoints,
  formatFieldIssues,
  inputSchemas,
  LIMITS,
  PAYMENT_CURRENCIES,
  responseSchemas,
  toFieldIssues,
} from '../../src/schemas/index.js';
import { IdempotencyKey } from '../../src/schemas/inputs.js';
import { parseOwn } from '../../src/schemas/issues.js';

describe('schemas', () => {
  it('names every bad field of a payment input', () => {
    const r = parseOwn(inputSchemas(true).CreatePaymentInput, { amount: 0, currency: 'rub', bogus: 1 });
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

describe('the rules the schemas state without zod builders', () => {
  it('timestamps: RFC 3339 in UTC, and a date that exists', async () => {
    const { isUtcTimestamp } = await import('../../src/schemas/common.js');
    expect(isUtcTimestamp('2026-11-21T06:00:00Z')).toBe(true);
    expect(isUtcTimestamp('2026-11-21T06:00:00.123456Z')).toBe(true);
    expect(isUtcTimestamp('2024-02-29T00:00:00Z')).toBe(true);
    expect(isUtcTimestamp('2026-02-29T00:00:00Z')).toBe(false);
    expect(isUtcTimestamp('2026-02-30T00:00:00Z')).toBe(false);
    expect(isUtcTimestamp('2026-11-21T06:00:00+03:00')).toBe(false);
    expect(isUtcTimestamp('2026-11-21 06:00:00Z')).toBe(false);
    expect(isUtcTimestamp('2026-11-21T24:00:00Z')).toBe(false);
  });

  it('URLs: absolute http(s) only', async () => {
    const { isHttpUrl } = await import('../../src/schemas/common.js');
    expect(isHttpUrl('https://shop.example/return?x=1')).toBe(true);
    expect(isHttpUrl('http://127.0.0.1:8080/hook')).toBe(true);
    for (const bad of ['ftp://x', 'javascript:alert(1)', '/relative', 'shop.example', '']) {
      expect(isHttpUrl(bad), bad).toBe(false);
    }
  });

  it('one rule for both sides: return_url is any absolute URI, webhook_url http(s) without credentials', () => {
    for (const strict of [true, false]) {
      const { CreatePaymentInput } = inputSchemas(strict);
      for (const url of ['shopapp://orders/42', 'https://shop.example/back', 'com.shop.app:/return']) {
        expect(CreatePaymentInput.safeParse({ amount: 1, return_url: url }).success, url).toBe(true);
      }
      for (const url of ['javascript:alert(1)', 'data:text/html,x', '/orders/42', 'orders/42']) {
        expect(CreatePaymentInput.safeParse({ amount: 1, return_url: url }).success, url).toBe(false);
      }
      for (const url of [
        'https://user:pass@hooks.example/psp',
        'http://user@hooks.example/',
        'shopapp://x',
      ]) {
        const r = CreatePaymentInput.safeParse({ amount: 1, webhook_url: url });
        expect(r.success, url).toBe(false);
      }
      const creds = parseOwn(CreatePaymentInput, { amount: 1, webhook_url: 'https://u:p@hooks.example/' });
      expect(formatFieldIssues(toFieldIssues(creds.error!.issues))).toBe(
        'webhook_url: must be an absolute http(s) URL in ASCII (an international host as xn--), without a user name or password',
      );
    }
  });

  it('one rule for both sides: an Idempotency-Key is up to 64 ASCII characters, spaces allowed inside', () => {
    for (const ok of ['order 42 attempt 1', 'k', 'k'.repeat(64), 'a\tb', '~!@#$%^&*()']) {
      expect(IdempotencyKey.safeParse(ok).success, ok).toBe(true);
    }
    for (const bad of ['', ' ', ' lead', 'trail ', 'k'.repeat(65), 'ключ', 'a\nb', 'a\u0000b']) {
      expect(IdempotencyKey.safeParse(bad).success, bad).toBe(false);
    }
  });

  it('ids in strict mode are UUIDv4; amounts are safe integers', () => {
    const strict = responseSchemas(true).Refund;
    const refund = {
      id: '3f1c6a0e-8b7d-4c2e-9a51-6d0b2f4e8c17',
      payment_id: '3f1c6a0e-8b7d-4c2e-9a51-6d0b2f4e8c17',
      merchant_id: '3f1c6a0e-8b7d-4c2e-9a51-6d0b2f4e8c17',
      amount: 100,
      reason: null,
      status: 'succeeded',
      created_at: '2026-11-21T06:00:00Z',
      completed_at: null,
    };
    expect(strict.safeParse(refund).success).toBe(true);
    expect(strict.safeParse({ ...refund, id: '3f1c6a0e-8b7d-1c2e-9a51-6d0b2f4e8c17' }).success).toBe(false);
    for (const amount of [1.5, 2 ** 53, '100', Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(strict.safeParse({ ...refund, amount }).success, String(amount)).toBe(false);
    }
    const input = parseOwn(inputSchemas(true).CreatePaymentInput, { amount: '5', webhook_url: 'ftp://x' });
    expect(formatFieldIssues(toFieldIssues(input.error!.issues))).toBe(
      'amount: must be a whole number of minor units (a safe integer); webhook_url: must be an absolute http(s) URL in ASCII (an international host as xn--), without a user name or password',
    );
  });
});

describe('one length rule: characters are code points, as the document and a user count them', () => {
  // '😀' is one character and two UTF-16 units: under UTF-16 counting 129 of them broke a 256 limit.
  const e = (n: number) => '😀'.repeat(n);
  const { orderIdMax, urlMax, metadataKeyMax, metadataValueMax, reasonMax } = LIMITS;
  const cases: Array<[string, 'CreatePaymentInput' | 'CreateRefundInput', (n: number) => unknown, number]> = [
    ['order_id (maxChars)', 'CreatePaymentInput', (n) => ({ amount: 1, order_id: e(n) }), orderIdMax],
    ['reason (maxChars)', 'CreateRefundInput', (n) => ({ reason: e(n) }), reasonMax],
    [
      // A URI is ASCII (issue 32): its characters are its code points and its UTF-16 units alike.
      'webhook_url (maxChars of a URL)',
      'CreatePaymentInput',
      (n) => ({ amount: 1, webhook_url: `https://shop.example/${'a'.repeat(n - 21)}` }),
      urlMax,
    ],
    [
      'a metadata key',
      'CreatePaymentInput',
      (n) => ({ amount: 1, metadata: { [e(n)]: 'v' } }),
      metadataKeyMax,
    ],
    [
      'a metadata value',
      'CreatePaymentInput',
      (n) => ({ amount: 1, metadata: { k: e(n) } }),
      metadataValueMax,
    ],
  ];
  it.each(cases)(
    '%s: the limit in emoji passes, one more is refused, in the SDK and the reference',
    (_, name, body, max) => {
      for (const strict of [false, true]) {
        const schema = inputSchemas(strict)[name];
        expect(schema.safeParse(body(max)).success, `${max} (strict: ${strict})`).toBe(true);
        const over = parseOwn(schema, body(max + 1));
        expect(over.success, `${max + 1} (strict: ${strict})`).toBe(false);
        expect(formatFieldIssues(toFieldIssues(over.error!.issues))).toMatch(
          new RegExp(`at most ${max} characters`),
        );
      }
    },
  );

  it('codePoints counts a pair once and a lone surrogate once', () => {
    expect(codePoints('a😀b')).toBe(3);
    expect(codePoints('\ud800x\udc00')).toBe(3);
    expect(codePoints('')).toBe(0);
  });
});

describe('currency: the one list of the service, the SDK checking only the form', () => {
  it('the reference takes RUB, USD and EUR and refuses another code; the SDK lets a new code through', () => {
    for (const currency of PAYMENT_CURRENCIES)
      expect(inputSchemas(true).CreatePaymentInput.safeParse({ amount: 1, currency }).success).toBe(true);
    const gbp = parseOwn(inputSchemas(true).CreatePaymentInput, { amount: 1, currency: 'GBP' });
    expect(formatFieldIssues(toFieldIssues(gbp.error!.issues))).toBe(
      'currency: must be one of RUB, USD, EUR',
    );
    expect(inputSchemas().CreatePaymentInput.safeParse({ amount: 1, currency: 'GBP' }).success).toBe(true);
    expect(inputSchemas().CreatePaymentInput.safeParse({ amount: 1, currency: 'gbp' }).success).toBe(false);
  });
});
