import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  hmacBackend,
  hmacSha256Hex,
  hmacSha256HexParts,
  timingSafeEqualString,
} from '../../src/internal/hmac.js';
import { BODY, hmacHex, NOW_MS, SECRET, T, v1Headers, v2Headers } from '../webhooks/helpers.js';

const VECTORS: Array<[string, string | Uint8Array]> = [
  [SECRET, ''],
  [SECRET, BODY],
  [SECRET, `${T}.${BODY}`],
  ['whs_ключ_🔑', 'тело запроса ✓'],
  [`whs_${'k'.repeat(100)}`, 'a key longer than the 64-byte SHA-256 block is hashed first'],
  [`whs_${'k'.repeat(60)}`, 'exactly 64 bytes of key'],
  [SECRET, new Uint8Array([0, 1, 2, 255, 254, 0x80])],
  [SECRET, 'x'.repeat(10_000)],
];

describe('HMAC backends', () => {
  it('uses node:crypto in Node', () => {
    expect(hmacBackend()).toBe('node');
  });

  it.each(['node', 'noble'] as const)('%s matches node:crypto on fixed vectors', (backend) => {
    for (const [key, data] of VECTORS) expect(hmacSha256Hex(key, data, backend)).toBe(hmacHex(key, data));
  });

  it('both backends agree with node:crypto on random keys and messages, in one part or several', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 80 }),
        fc.array(
          fc.oneof(fc.string({ unit: 'grapheme', maxLength: 200 }), fc.uint8Array({ maxLength: 200 })),
          {
            maxLength: 4,
          },
        ),
        (key, parts) => {
          const whole = Buffer.concat(
            parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))),
          );
          const expected = hmacHex(key, whole);
          expect(hmacSha256HexParts(key, parts, 'node')).toBe(expected);
          expect(hmacSha256HexParts(key, parts, 'noble')).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('timingSafeEqualString compares exactly', () => {
    expect(timingSafeEqualString('abc', 'abc')).toBe(true);
    expect(timingSafeEqualString('abc', 'abd')).toBe(false);
    expect(timingSafeEqualString('abc', 'ab')).toBe(false);
    expect(timingSafeEqualString('', '')).toBe(true);
  });
});

describe('verifyWebhook without node:crypto (the @noble/hashes fallback)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.resetModules();
  });

  it('verifies and refuses exactly as with node:crypto', async () => {
    vi.resetModules();
    vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined as never);
    const fresh = await import('../../src/webhooks/index.js');
    const hmac = await import('../../src/internal/hmac.js');
    expect(hmac.hmacBackend()).toBe('noble');
    expect(fresh.verifyWebhook(BODY, v2Headers(BODY), SECRET, { now: NOW_MS }).id).toBe('evt_01JD3Z8K9QW');
    expect(fresh.verifyWebhook(Buffer.from(BODY), v1Headers(BODY), SECRET).id).toBe('evt_01JD3Z8K9QW');
    expect(() => fresh.verifyWebhook(`${BODY} `, v2Headers(BODY), SECRET, { now: NOW_MS })).toThrow(
      /No signature matches/,
    );
    const signed = fresh.signWebhook(BODY, SECRET, { timestamp: T });
    expect(signed.headers['x-psp-signature']).toBe(v2Headers(BODY)['x-psp-signature']);
  });
});
