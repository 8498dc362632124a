import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenNode, type NodeServer } from '../../src/reference/adapters/node-http.js';
import { createReference, directHandler, type Reference, wireHandler } from '../../src/reference/service.js';
import { type Answer, raw as send } from './raw-http.js';

// Random requests around the two direct routes, sent to two listeners on one reference: one with the node adapter's
// direct path, one without (everything through @hono/node-server and hono). The answers must match; only the ids
// of new payments, the request id and the date may differ.

let ref: Reference;
let direct: NodeServer;
let full: NodeServer;
let existingId: string;

beforeAll(async () => {
  ref = createReference({ clock: 'manual' });
  ref.cabinet.updateMerchant(ref.facts.merchant_id, { rate_limit: { limit: 1_000_000, window_seconds: 1 } });
  direct = await listenNode(wireHandler(ref), { direct: directHandler(ref) });
  full = await listenNode(wireHandler(ref));
  const answer = await send(
    direct,
    `POST /api/v1/public/payments HTTP/1.1\r\nHost: ref.test\r\nAuthorization: Bearer ${ref.facts.api_key}\r\nContent-Length: 14`,
    '{"amount":100}',
  );
  existingId = JSON.parse(answer.body).payment.id;
});
afterAll(async () => {
  await direct?.close();
  await full?.close();
  await ref?.close();
});

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** A new payment's id differs between the two sends (content-length moves with nothing else: ids are fixed-size). */
const comparable = ({ headers, ...a }: Answer) => {
  // The request id and the date differ per answer by design.
  const { date: _date, 'x-request-id': _requestId, ...rest } = headers;
  return { ...a, headers: rest, body: a.body.replace(UUID, (id) => (id === existingId ? id : 'NEW')) };
};

const target = fc.oneof(
  fc.constant('/api/v1/public/payments'),
  fc.constant('/api/v1/public/payments/EXISTING'),
  fc
    .constantFrom(
      '00000000-0000-4000-8000-000000000000',
      'not-a-uuid',
      'x',
      'EXISTING-UPPER',
      'A'.repeat(64),
      'A'.repeat(65),
    )
    .map((id) => `/api/v1/public/payments/${id}`),
  fc
    .tuple(
      fc.constantFrom('/api/v1/public/payments', '/api/v1/public/payments/EXISTING'),
      fc.constantFrom('?a=1', '/', '/.', '/..', '%2F', '#x'),
    )
    .map(([path, tail]) => path + tail),
);
const body = fc.oneof(
  fc
    .record({ amount: fc.oneof(fc.integer({ min: -5, max: 2_000_000 }), fc.constant(1.5)) })
    .map((b) => JSON.stringify(b)),
  fc
    .record({
      amount: fc.integer({ min: 1, max: 10_000 }),
      currency: fc.constantFrom('RUB', 'USD', 'XXX'),
      order_id: fc.string({ maxLength: 8 }),
    })
    .map((b) => JSON.stringify(b)),
  fc.constantFrom('', '{', '[]', 'null', '{"amount":"100"}', '{"amount":100,"extra":true}'),
);
const request = fc.record({
  method: fc.constantFrom('GET', 'POST'),
  target,
  key: fc.constantFrom('valid', 'missing', 'unknown', 'basic'),
  host: fc.constantFrom('ref.test', 'Ref.Test', 'ref.test:8080', '0x7f.1', '[::1]', ''),
  contentType: fc.constantFrom(
    undefined,
    'application/json',
    'text/plain',
    'application/json; charset=utf-8',
  ),
  idempotencyKey: fc.constantFrom(undefined, 'k', ' ', 'x'.repeat(65)),
  signature: fc.constantFrom(undefined, 'valid', 'sha256=00', 'garbage'),
  body,
  chunked: fc.boolean(),
});

type RandomRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

function headOf(r: RandomRequest, nonce: string, send: string): string {
  const path = r.target.replace('EXISTING-UPPER', existingId.toUpperCase()).replace('EXISTING', existingId);
  const lines = [`${r.method} ${path} HTTP/1.1`];
  if (r.host !== '') lines.push(`Host: ${r.host}`);
  if (r.key === 'valid') lines.push(`Authorization: Bearer ${ref.facts.api_key}`);
  if (r.key === 'unknown') lines.push('Authorization: Bearer sk_test_nobody_0000');
  if (r.key === 'basic') lines.push('Authorization: Basic eDp5');
  if (r.contentType) lines.push(`Content-Type: ${r.contentType}`);
  // A valid key is made unique per send, or the second send would replay the first one's payment.
  if (r.idempotencyKey !== undefined)
    lines.push(`Idempotency-Key: ${r.idempotencyKey === 'k' ? `k-${nonce}` : r.idempotencyKey}`);
  if (r.signature === 'valid')
    lines.push(
      `X-PSP-Signature: sha256=${createHmac('sha256', ref.facts.signing_secret).update(send).digest('hex')}`,
    );
  else if (r.signature) lines.push(`X-PSP-Signature: ${r.signature}`);
  if (r.chunked) lines.push('Transfer-Encoding: chunked');
  else if (r.method === 'POST' || send !== '') lines.push(`Content-Length: ${Buffer.byteLength(send)}`);
  return lines.join('\r\n');
}

const framed = (r: { chunked: boolean }, text: string) =>
  r.chunked
    ? `${text.length > 0 ? `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n` : ''}0\r\n\r\n`
    : text;

describe('the direct path against the full app, on random requests', () => {
  it('answers alike: status, headers and body (new ids aside)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const text = r.method === 'GET' ? '' : r.body;
        n++;
        const a = await send(direct, headOf(r, `a${n}`, text), framed(r, text));
        const b = await send(full, headOf(r, `b${n}`, text), framed(r, text));
        expect(comparable(a)).toEqual(comparable(b));
        expect(a.status).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
  });
});
