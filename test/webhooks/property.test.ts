import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, WebhookVerificationError } from '../../src/webhooks/index.js';
import { BODY, hmacHex, NOW_MS, OLD_SECRET, SECRET, T, v2Header } from './helpers.js';

const HEX = '0123456789abcdef';
const bodyBytes = Buffer.from(BODY);
const sigV2 = hmacHex(SECRET, `${T}.${BODY}`);
const sigV1 = hmacHex(SECRET, BODY);

function outcome(fn: () => unknown): 'ok' | 'refused' {
  try {
    fn();
    return 'ok';
  } catch (e) {
    // Anything but the typed error is a bug.
    if (!(e instanceof WebhookVerificationError)) throw e;
    return 'refused';
  }
}

const verify = (
  body: string | Uint8Array,
  headers: Record<string, string>,
  secret: string | string[] = SECRET,
) => outcome(() => verifyWebhook(body, headers, secret, { now: NOW_MS }));

// A character different from `c` in the sense that matters (hex compares case-insensitively).
const otherHex = (c: string, k: number) => {
  const i = HEX.indexOf(c.toLowerCase());
  return HEX[(i + 1 + (k % 15)) % 16]!;
};

describe('no mutation of a signed webhook verifies', () => {
  it('the untouched webhook verifies (the property below can fail)', () => {
    expect(verify(BODY, { 'x-psp-signature': v2Header(BODY), 'x-psp-timestamp': String(T) })).toBe('ok');
  });

  it('body: any changed, inserted or deleted byte', () => {
    fc.assert(
      fc.property(
        fc.nat({ max: bodyBytes.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        fc.constantFrom('flip', 'insert', 'delete'),
        (pos, delta, kind) => {
          const b = Buffer.from(bodyBytes);
          let mutated: Buffer;
          if (kind === 'flip') {
            b[pos] = (b[pos]! + delta) % 256;
            mutated = b;
          } else if (kind === 'insert')
            mutated = Buffer.concat([b.subarray(0, pos), Buffer.from([delta]), b.subarray(pos)]);
          else mutated = Buffer.concat([b.subarray(0, pos), b.subarray(pos + 1)]);
          expect(verify(mutated, { 'x-psp-signature': v2Header(BODY) })).toBe('refused');
          expect(verify(mutated.toString('latin1'), { 'x-psp-signature': v2Header(BODY) })).toBe('refused');
        },
      ),
      { numRuns: 400 },
    );
  });

  it('signature: any changed hex digit of v2=', () => {
    fc.assert(
      fc.property(fc.nat({ max: 63 }), fc.nat(), (pos, k) => {
        const mutated = sigV2.slice(0, pos) + otherHex(sigV2[pos]!, k) + sigV2.slice(pos + 1);
        expect(verify(BODY, { 'x-psp-signature': `t=${T},v1=${sigV1},v2=${mutated}` })).toBe('refused');
      }),
      { numRuns: 300 },
    );
  });

  it('timestamp: any other t=, with or without a matching X-PSP-Timestamp', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 99_999_999_999 }), (t) => {
        fc.pre(t !== T);
        const sig = `t=${t},v1=${sigV1},v2=${sigV2}`;
        expect(verify(BODY, { 'x-psp-signature': sig })).toBe('refused');
        expect(verify(BODY, { 'x-psp-signature': sig, 'x-psp-timestamp': String(t) })).toBe('refused');
        expect(verify(BODY, { 'x-psp-signature': v2Header(BODY), 'x-psp-timestamp': String(t) })).toBe(
          'refused',
        );
      }),
      { numRuns: 300 },
    );
  });

  it('secret: any other secret, alone or in a list', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 40 }), (suffix) => {
        const secret = `whs_${suffix}`;
        fc.pre(secret !== SECRET);
        expect(verify(BODY, { 'x-psp-signature': v2Header(BODY) }, secret)).toBe('refused');
        expect(verify(BODY, { 'x-psp-signature': v2Header(BODY) }, [OLD_SECRET, secret])).toBe('refused');
      }),
      { numRuns: 300 },
    );
  });

  it('header: arbitrary edits verify only if t= and the v2= signature survive intact', () => {
    const original = v2Header(BODY);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            pos: fc.nat({ max: original.length }),
            del: fc.nat({ max: 3 }),
            ins: fc.string({ maxLength: 4 }),
          }),
          { minLength: 1, maxLength: 3 },
        ),
        (edits) => {
          let h = original;
          for (const { pos, del, ins } of edits) h = h.slice(0, pos) + ins + h.slice(pos + del);
          if (verify(BODY, { 'x-psp-signature': h }) === 'ok') {
            const entries = h.split(',').map((p) => p.trim());
            expect(entries).toContain(`t=${T}`);
            expect(entries.map((e) => e.toLowerCase())).toContain(`v2=${sigV2}`);
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('verifyWebhook throws nothing but WebhookVerificationError', () => {
  it('on arbitrary bodies, headers, secrets and options', () => {
    const anyBody = fc.oneof(
      fc.string(),
      fc.uint8Array(),
      fc.anything(),
      fc.constant(BODY),
      fc.uint8Array().map((u) => u.buffer),
    );
    const anyHeaderValue = fc.oneof(
      fc.string(),
      fc.constant(v2Header(BODY)),
      fc.array(fc.string(), { maxLength: 3 }),
      fc.integer(),
      fc.constant(undefined),
    );
    const anyHeaders = fc.oneof(
      fc.record(
        { 'x-psp-signature': anyHeaderValue, 'X-PSP-Timestamp': anyHeaderValue },
        { requiredKeys: [] },
      ),
      fc.dictionary(fc.string(), fc.string()),
      fc.anything(),
    );
    const anySecret = fc.oneof(fc.string(), fc.constant(SECRET), fc.array(fc.string()), fc.anything());
    const anyOptions = fc.oneof(
      fc.record(
        {
          tolerance: fc.oneof(fc.double(), fc.integer(), fc.anything()),
          now: fc.oneof(fc.double(), fc.date(), fc.anything()),
          requireV2: fc.anything(),
        },
        { requiredKeys: [] },
      ),
      fc.constant(undefined),
    );
    const seen = new Set<string>();
    fc.assert(
      fc.property(anyBody, anyHeaders, anySecret, anyOptions, (body, headers, secret, options) => {
        seen.add(
          outcome(() => verifyWebhook(body as never, headers as never, secret as never, options as never)),
        );
      }),
      { numRuns: 2000 },
    );
    // Every input ended in an answer or the typed refusal (`outcome` rethrows anything else).
    expect(seen.has('refused')).toBe(true);
  });
});
