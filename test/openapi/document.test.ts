import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OPERATION_CASES } from '../support/operation-cases.js';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { listenNode } from '../../src/reference/adapters/node-http.js';
import { createReference } from '../../src/reference/service.js';
import { inputSchemas } from '../../src/schemas/inputs.js';
import { WEBHOOK_EVENTS } from '../../src/schemas/names.js';
import {
  OPERATIONS,
  type OperationName,
  type OperationRow,
  PUBLIC_PREFIX,
  routeOf,
} from '../../src/schemas/operations.js';

const root = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
const committed = JSON.parse(readFileSync(join(root, 'openapi.json'), 'utf8')) as {
  paths: Record<
    string,
    Record<string, { responses: Record<string, unknown>; parameters: Array<{ $ref: string }> }>
  >;
  components: { schemas: Record<string, unknown> };
  servers?: Array<{ url: string }>;
};

// Spec section 4, as the spec lists it: the statuses its text names for each operation (the one table of
// test/support/operation-cases.ts). The document must list each, and more where the reference answers more (section
// 5 refuses on every operation).
const SPEC_SECTION_4 = Object.fromEntries(
  Object.entries(OPERATION_CASES).map(([name, c]) => [name, c.spec]),
) as Record<OperationName, readonly number[]>;
const NAMES = Object.keys(OPERATIONS) as OperationName[];

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
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(NAMES.map((n) => routeOf(n)).sort());
    expect(Object.keys(SPEC_SECTION_4).sort()).toEqual([...NAMES].sort());
    for (const name of NAMES) {
      const row: OperationRow = OPERATIONS[name];
      const op = committed.paths[`${PUBLIC_PREFIX}${row.path}`]![row.method.toLowerCase()]!;
      const listed = Object.keys(op.responses);
      for (const status of SPEC_SECTION_4[name]) expect(listed, name).toContain(String(status));
      // No ranges, no default: every status is its own entry.
      for (const key of listed) expect(key, name).toMatch(/^[1-5]\d\d$/);
      // Section 5 on every operation: the key, the allow-list and live mode, the rate limit, the signature; and
      // 431, which the node adapter answers on any of them when the headers are too large.
      for (const status of ['400', '401', '403', '429', '431']) expect(listed, name).toContain(status);
      const params = op.parameters.map((p) => p.$ref.split('/').pop());
      expect(params).toContain('Signature');
      expect(params.includes('IdempotencyKey'), name).toBe(row.idempotent === true);
      expect(params.includes('PaymentId') || params.includes('PayoutId')).toBe(row.id !== undefined);
    }
  });

  it("has every row's body and answer as a component, and the operation names them", () => {
    for (const name of NAMES) {
      const row: OperationRow = OPERATIONS[name];
      const op = committed.paths[`${PUBLIC_PREFIX}${row.path}`]![row.method.toLowerCase()]! as unknown as {
        requestBody?: { content: Record<string, { schema: { $ref: string } }> };
        responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
      };
      for (const schema of [row.input, row.answer])
        if (schema) expect(committed.components.schemas, name).toHaveProperty(schema);
      expect(op.requestBody?.content['application/json']?.schema.$ref, name).toBe(
        row.input && `#/components/schemas/${row.input}`,
      );
      const ok = Object.entries(op.responses).filter(([status]) => Number(status) < 300);
      for (const [status, answer] of ok)
        expect(answer.content?.['application/json']?.schema.$ref, `${name} ${status}`).toBe(
          row.answer && `#/components/schemas/${row.answer}`,
        );
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

/** Every `[path, value]` under `node` whose key is `key`. */
function every(node: unknown, key: string, at = ''): Array<[string, unknown]> {
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) => [
    ...(k === key ? [[`${at}/${k}`, v] as [string, unknown]] : []),
    ...every(v, key, `${at}/${k}`),
  ]);
}

/** Sends raw HTTP/1.1 to a node server of `ref`; the status line's code and the body. */
async function raw(ref: ReturnType<typeof createReference>, text: string) {
  const server = await listenNode(ref.fetch.bind(ref), { host: '127.0.0.1', port: 0 });
  try {
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1', () => socket.end(text));
      let got = '';
      socket.setEncoding('utf8').on('data', (d: string) => {
        got += d;
      });
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
    });
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body };
  } finally {
    await server.close();
  }
}

// Issue 32: where schemathesis found the published document and the service apart.
describe('the document equals the service (issue 32)', () => {
  const ops = Object.entries(committed.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod).map(([method, op]) => [method, path, op] as const),
  );

  it('503 `service_unavailable` is listed, with Retry-After, on every operation whose body is read, and only there', () => {
    for (const [method, path, op] of ops) {
      const busy = op.responses['503'] as
        | { description: string; headers: Record<string, unknown> }
        | undefined;
      expect(!!busy, `${method} ${path}`).toBe(method === 'post');
      if (!busy) continue;
      expect(busy.description).toContain('service_unavailable');
      expect(busy.headers).toHaveProperty('Retry-After');
    }
  });

  it('amounts carry their cap (2^53 - 1) as `maximum`, but a refund, which answers any excess with 422', () => {
    const amounts = every(committed.components.schemas, 'properties').flatMap(([at, props]) =>
      Object.entries(props as Record<string, { type?: string; maximum?: number }>)
        .filter(([name]) => name === 'amount' || name === 'amount_refunded')
        .map(([name, schema]) => [`${at}/${name}`, schema] as const),
    );
    expect(amounts.length).toBeGreaterThanOrEqual(6);
    for (const [at, schema] of amounts) {
      if (at.includes('CreateRefundInput')) expect(schema.maximum, at).toBeUndefined();
      else expect(schema.maximum, at).toBe(Number.MAX_SAFE_INTEGER);
    }
  });

  it("a refund larger than any balance is the spec's 422 `amount_exceeds_balance` (was 400), however it is written", async () => {
    const ref = createReference({ clock: 'manual' });
    try {
      const call = (path: string, body: string) =>
        ref.fetch(
          new Request(`http://ref.test${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ref.api_key}`, 'content-type': 'application/json' },
            body,
          }),
        );
      const created = await call('/api/v1/public/payments', '{"amount":1000}');
      const { payment } = (await created.json()) as { payment: { id: string } };
      await ref.control.succeedPayment(payment.id);
      for (const amount of ['9007199254740992', '9007199254740993', '1e30', `1${'0'.repeat(400)}`]) {
        const res = await call(`/api/v1/public/payments/${payment.id}/refund`, `{"amount":${amount}}`);
        expect(res.status, amount).toBe(422);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('amount_exceeds_balance');
      }
      // Not a whole number is still a malformed body.
      expect((await call(`/api/v1/public/payments/${payment.id}/refund`, '{"amount":1.5}')).status).toBe(400);
      // The client's own check agrees on what it can send.
      expect(inputSchemas().CreateRefundInput.safeParse({ amount: 2 ** 60 }).success).toBe(true);
      expect(inputSchemas().CreateRefundInput.safeParse({ amount: Number.POSITIVE_INFINITY }).success).toBe(
        false,
      );
    } finally {
      await ref.close();
    }
  });

  it('no pattern uses `\\d` (other languages read it as any Unicode digit): `[0-9]`', () => {
    const patterns = every(committed, 'pattern');
    expect(patterns.length).toBeGreaterThanOrEqual(4);
    for (const [at, pattern] of patterns) expect(pattern, at).not.toMatch(/\\[dDwWsSb]/);
  });

  it('webhook_url: the pattern and the service take the same strings (a URI: `xn--`, no IRI)', () => {
    const field = (
      committed.components.schemas.CreatePaymentInput as {
        properties: { webhook_url: { pattern: string } };
      }
    ).properties.webhook_url;
    const doc = new RegExp(field.pattern, 'u');
    const service = (url: string) =>
      inputSchemas(true).CreatePaymentInput.safeParse({ amount: 1, webhook_url: url }).success;
    for (const [url, taken] of [
      ['http://xn--a.example/', true],
      ['https://xn--80aairftm.xn--p1ai/', true],
      ['https://магазин.рф/', false],
      ['https://shop.example/заказ', false],
      ['https://shop.example/%zz', false],
    ] as const) {
      expect(doc.test(url), url).toBe(taken);
      expect(service(url), url).toBe(taken);
    }
  });

  it('every operation, the webhooks included, has its own operationId (redocly lint: no warning but an unused SseEvent)', () => {
    const ids = every(committed, 'operationId').map(([, id]) => id);
    expect(ids.length).toBe(NAMES.length + WEBHOOK_EVENTS.length);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has `servers`: an absolute http(s) URL', () => {
    expect(committed.servers?.length).toBeGreaterThan(0);
    for (const { url } of committed.servers ?? []) expect(new URL(url).protocol).toMatch(/^https?:$/);
  });

  it("a GET that carries a body is refused (400 bad_request), not checked against the empty body's signature", async () => {
    const ref = createReference();
    try {
      // The empty string's signature, which a GET with a body passed before while other bytes were sent.
      const { createHmac } = await import('node:crypto');
      await ref.control.updateTerminal(ref.terminal_id, { require_signature: true });
      const empty = createHmac('sha256', ref.signing_secret).update('').digest('hex');
      const get = (extra: string) =>
        raw(
          ref,
          `GET /api/v1/public/banks/sbp HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ref.api_key}\r\nX-PSP-Signature: sha256=${empty}\r\nConnection: close\r\n${extra}`,
        );
      expect((await get('\r\n')).status).toBe(200);
      expect((await get('Content-Length: 0\r\n\r\n')).status).toBe(200);
      for (const body of [
        'Content-Length: 5\r\n\r\nhello',
        'Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
      ]) {
        const res = await get(body);
        expect(res.status, body).toBe(400);
        expect(JSON.parse(res.body).error.code).toBe('bad_request');
      }
    } finally {
      await ref.close();
    }
  });
});
