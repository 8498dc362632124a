import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { createReference } from '../../src/reference/service.js';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const committed = JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8')) as {
  paths: Record<
    string,
    Record<string, { responses: Record<string, unknown>; parameters: Array<{ $ref: string }> }>
  >;
  components: { schemas: Record<string, unknown> };
};

// Spec section 4, as the spec lists it: each operation and the statuses its text names. The document must list
// each, and more where the reference answers more (section 5 refuses on every operation).
const SPEC_SECTION_4: Array<[string, string, number[]]> = [
  ['post', '/api/v1/public/payments', [201, 200, 400, 401, 403, 409, 429]],
  ['get', '/api/v1/public/payments/{id}', [200, 404]],
  ['post', '/api/v1/public/payments/{id}/cancel', [200, 404, 409]],
  ['post', '/api/v1/public/payments/{id}/refund', [201, 404, 409, 422]],
  ['post', '/api/v1/public/payouts', [201, 200, 400, 422]],
  ['get', '/api/v1/public/payouts/{id}', [200, 404]],
  ['get', '/api/v1/public/banks/sbp', [200]],
  ['get', '/api/v1/public/events', [200]],
];
const CREATIONS = [
  '/api/v1/public/payments',
  '/api/v1/public/payments/{id}/refund',
  '/api/v1/public/payouts',
];

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 for an independent validator (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(committed);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('openapi.json is what the zod schemas and the operation table make now (npm run build regenerates it)', () => {
    expect(committed).toEqual(buildOpenApiDocument(pkg.version));
  });

  it('has every operation of spec section 4, each with the statuses the spec names, listed one by one', () => {
    const operations = Object.entries(committed.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method} ${path}`),
    );
    expect(operations.sort()).toEqual(SPEC_SECTION_4.map(([m, p]) => `${m} ${p}`).sort());
    for (const [method, path, statuses] of SPEC_SECTION_4) {
      const op = committed.paths[path]![method]!;
      const listed = Object.keys(op.responses);
      for (const status of statuses) expect(listed, `${method} ${path}`).toContain(String(status));
      // No ranges, no default: every status is its own entry.
      for (const key of listed) expect(key, `${method} ${path}`).toMatch(/^[1-5]\d\d$/);
      // Section 5 on every operation: the key, the allow-list and live mode, the rate limit, the signature; and
      // 431, which the node adapter answers on any of them when the headers are too large.
      for (const status of ['400', '401', '403', '429', '431'])
        expect(listed, `${method} ${path}`).toContain(status);
      const params = op.parameters.map((p) => p.$ref.split('/').pop());
      expect(params).toContain('Signature');
      expect(params.includes('IdempotencyKey'), `${method} ${path}`).toBe(CREATIONS.includes(path));
      expect(params.includes('PaymentId') || params.includes('PayoutId')).toBe(path.includes('{id}'));
    }
  });

  it('has the schemas of spec section 2 and the error body as components', () => {
    for (const name of [
      'Payment',
      'CreatePaymentInput',
      'CreatePaymentResponse',
      'Refund',
      'CreatePayoutInput',
      'CreatePayoutResponse',
      'Payout',
      'SBPBank',
      'Error',
      'PaymentWebhook',
      'PayoutWebhook',
      'SseEvent',
    ]) {
      expect(committed.components.schemas, name).toHaveProperty(name);
    }
  });

  it('is served at GET /openapi.json without authentication, and shipped as psp-sdk/openapi.json', async () => {
    const ref = createReference();
    try {
      const res = await ref.fetch(new Request('http://ref.test/openapi.json'));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(committed);
      const head = await ref.fetch(new Request('http://ref.test/openapi.json', { method: 'HEAD' }));
      expect(head.status).toBe(200);
    } finally {
      await ref.close();
    }
    // The package's own export map (a package may import itself by name).
    expect(createRequire(import.meta.url).resolve('psp-sdk/openapi.json')).toBe(join(root, 'openapi.json'));
  });
});
