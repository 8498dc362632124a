import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningReference, startReference } from '../../src/reference/index.js';

/**
 * Random methods and paths over real sockets, through the node:http adapter (what `psp-reference` serves):
 * never a 5xx, always the spec's error body on a refusal, and no object created. test/reference/property.test.ts
 * covers random bodies and headers per endpoint in process; this covers the routing surface and the adapter.
 */

let ref: RunningReference;
beforeAll(async () => {
  ref = await startReference({ port: 0 });
  await ref.control.updateMerchant(ref.merchant_id, {
    rate_limit: { limit: 1_000_000, window_seconds: 1 },
  });
});
afterAll(async () => {
  await ref?.close();
});

/** Raw request: node:http sends any method and path as given, unlike fetch, which normalises both. */
function raw(method: string, path: string, headers: Record<string, string>, body: string) {
  const url = new URL(ref.base_url);
  return new Promise<{ status: number; body: string; type: string }>((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method,
        path,
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text, type: String(res.headers['content-type']) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const segment = fc.oneof(
  fc.constantFrom(
    'api',
    'v1',
    'public',
    'payments',
    'payouts',
    'banks',
    'sbp',
    'events',
    'cancel',
    'refund',
    '_cabinet',
    '_simulator',
    'pay',
    '..',
    '.',
    '%2e%2e',
    '%00',
    '',
  ),
  fc.uuid(),
  fc.string({ maxLength: 20 }).map((s) => encodeURIComponent(s)),
);
const path = fc.oneof(
  fc.array(segment, { maxLength: 7 }).map((s) => `/${s.join('/')}`),
  fc.array(segment, { maxLength: 4 }).map((s) => `/api/v1/public/${s.join('/')}`),
  fc
    .tuple(fc.array(segment, { maxLength: 4 }), fc.string({ maxLength: 30 }))
    .map(([s, q]) => `/api/v1/public/${s.join('/')}?${encodeURIComponent(q)}`),
);
const method = fc.constantFrom(
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
  'TRACE',
  'PROPFIND',
);

async function objectsCreated(): Promise<string> {
  return JSON.stringify(ref.stats?.() ?? null);
}

describe('random methods and paths over the node:http adapter', () => {
  it('never answer 5xx and refuse with the error body', async () => {
    let requests = 0;
    const byStatus: Record<number, number> = {};
    const before = await objectsCreated();
    await fc.assert(
      fc.asyncProperty(
        method,
        path,
        fc.boolean(),
        fc.string({ maxLength: 100 }),
        async (m, p, authed, body) => {
          const headers: Record<string, string> = { 'content-type': 'application/json' };
          if (authed) headers.authorization = `Bearer ${ref.api_key}`;
          // Bodies are random text: JSON that parses to a valid creation is vanishingly rare, but exclude it anyway.
          const res = await raw(m, p, headers, m === 'GET' || m === 'HEAD' ? '' : body);
          requests++;
          byStatus[res.status] = (byStatus[res.status] ?? 0) + 1;
          expect(res.status, `${m} ${p}`).toBeLessThan(500);
          if (res.status >= 400 && m !== 'HEAD' && res.type.includes('text/html')) {
            // Only the buyer's page answers in HTML (it answers people, not programs).
            expect(p.startsWith('/pay'), `${m} ${p} answered HTML`).toBe(true);
          } else if (res.status >= 400 && m !== 'HEAD') {
            const parsed = JSON.parse(res.body) as { error: { code: unknown; message: unknown } };
            expect(typeof parsed.error.code).toBe('string');
            expect(typeof parsed.error.message).toBe('string');
          }
        },
      ),
      { numRuns: 400, seed: 20261121 },
    );
    console.log(`[random-requests] requests=${requests} by-status=${JSON.stringify(byStatus)}`);
    expect(await objectsCreated()).toBe(before);
  });
});
