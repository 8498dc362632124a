import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/reference/domain/clock.js';
import { Domain } from '../../../src/reference/domain/core.js';
import { DEFAULTS } from '../../../src/reference/domain/defaults.js';
import { StorageQuota, utf8Length } from '../../../src/reference/domain/quota.js';

const bytes = (text: string) => new TextEncoder().encode(text).length;

describe('the storage bound counts UTF-8 bytes', () => {
  it('a payment with Cyrillic metadata counts the UTF-8 bytes of its JSON, not its UTF-16 units', () => {
    const body = { amount: 1000, metadata: { note: 'ж'.repeat(500), tag: '😀'.repeat(100) } };
    const json = JSON.stringify(body);
    expect(StorageQuota.cost(body)).toBe(DEFAULTS.storedObjectBytes + bytes(json));
    expect(bytes(json)).toBe(json.length + 500 + 200); // 2 bytes per letter (1 unit), 4 per emoji (2 units)

    const clock = new ManualClock(Date.parse('2026-05-06T10:00:00.000Z'));
    const domain = new Domain({ clock });
    const caller = domain.caller(domain.accounts.createMerchant('M').key);
    domain.payments.create(caller, body, undefined, 'http://x');
    expect(domain.quota.used(caller.merchant.id)).toBe(DEFAULTS.storedObjectBytes + bytes(json));
  });

  it('utf8Length agrees with TextEncoder on every kind of code unit, lone surrogates included', () => {
    for (const text of ['', 'abc', 'ж', '€', '😀', 'a\ud800b', '\udc00', 'x\ud83d', 'ж😀a€\u07ff\u0800']) {
      expect(utf8Length(text), JSON.stringify(text)).toBe(bytes(text));
    }
  });
});
