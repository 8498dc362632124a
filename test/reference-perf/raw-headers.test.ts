import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { header, RAW_HEADERS } from '../../src/reference/http/headers.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';

const running: RunningReference[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

const NAMES = [
  'authorization',
  'content-type',
  'content-length',
  'x-psp-signature',
  'idempotency-key',
  'x-a',
];
const randomCase = (name: string) =>
  fc
    .array(fc.boolean(), { minLength: name.length, maxLength: name.length })
    .map((up) => [...name].map((ch, i) => (up[i] ? ch.toUpperCase() : ch)).join(''));
// What node's parser hands over: visible ASCII and inner spaces, no leading or trailing whitespace.
const value = fc
  .string({ unit: fc.constantFrom(...'abcXYZ019 ,;=_-/"'.split('')), maxLength: 12 })
  .map((s) => s.trim());

describe('header() over the raw header list', () => {
  it('answers exactly what Headers#get answers, repeats and case included', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.constantFrom(...NAMES).chain((n) => fc.tuple(randomCase(n), value)),
          { maxLength: 8 },
        ),
        (pairs) => {
          const request = new Request('http://x.test/');
          Object.assign(request, { [RAW_HEADERS]: pairs.flat() });
          const expected = new Headers(pairs);
          for (const name of [...NAMES, 'absent']) expect(header(request, name)).toBe(expected.get(name));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('falls back to request.headers without a raw list', () => {
    const request = new Request('http://x.test/', { headers: { Authorization: 'Bearer a' } });
    expect(header(request, 'authorization')).toBe('Bearer a');
    expect(header(request, 'x-psp-signature')).toBeNull();
  });

  it('over HTTP, two Authorization headers are one joined value (malformed), as before', async () => {
    const ref = await startReference({ port: 0 });
    running.push(ref);
    const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(`${ref.base_url}/api/v1/public/banks/sbp`, {
        headers: [
          ['Host', new URL(ref.base_url).host],
          ['Authorization', `Bearer ${ref.api_key}`],
          ['authorization', `Bearer ${ref.api_key}`],
        ].flat(),
      } as never);
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c: Buffer) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.text).error.message).toBe(
      'The Authorization header must be "Bearer <API key>".',
    );
  });
});
