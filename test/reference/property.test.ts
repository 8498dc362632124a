import { answersOf, EVERY_REQUEST, OPERATION_CASES } from '../support/operation-cases.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { responseSchemas } from '../../src/schemas/resources.js';
import { hmacSha256Hex } from '../../src/internal/hmac.js';
import { OPERATIONS, type OperationName, type OperationRow, pathOf } from '../../src/schemas/operations.js';
import { PUBLIC, payoutInput, setup } from './helpers.js';

// Random requests to every public endpoint: never a 5xx, every refusal carries the spec's error body, and a
// refused request changes nothing (no object is created and the known objects read the same).
let env: ReturnType<typeof setup>;
let ids: { pending: string; succeeded: string; payout: string };

beforeAll(async () => {
  env = setup();
  await env.ref.control.updateMerchant(env.ref.merchant_id, {
    rate_limit: { limit: 1_000_000, window_seconds: 1 },
  });
  const a = await env.createPayment({ amount: 1000 });
  const b = await env.createPayment({ amount: 2000 });
  await env.ref.control.succeedPayment(b.payment.id);
  const p = await env.call('/payouts', { body: payoutInput({ amount: 10_903 }) });
  ids = { pending: a.payment.id, succeeded: b.payment.id, payout: p.body.payout.id };
});
afterAll(() => env.ref.close());

async function snapshot(): Promise<string> {
  const read = (path: string) => env.call(path).then((r) => r.text);
  return JSON.stringify([
    env.ref.stats(),
    await read(`/payments/${ids.pending}`),
    await read(`/payments/${ids.succeeded}`),
    await read(`/payouts/${ids.payout}`),
  ]);
}

const anyId = () =>
  fc.oneof(
    fc.constantFrom('pending', 'succeeded', 'payout').map((k) => ids[k as keyof typeof ids]),
    fc.uuid(),
    // `.` and `..` are dot segments, which the URL parser removes: `/payments/./cancel` is `/payments/cancel`.
    fc
      .string({ maxLength: 80 })
      .map((s) => encodeURIComponent(s))
      .filter((s) => s !== '.' && s !== '..'),
  );

const fieldValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.string({ maxLength: 300 }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(
    Number.POSITIVE_INFINITY,
    -0,
    2 ** 53,
    'RUB',
    'sbp',
    '+79991234567',
    '100000000111',
    'https://x.example',
  ),
  fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 10 }), { maxKeys: 5 }),
  fc.array(fc.integer(), { maxLength: 3 }),
);
const knownKeys = [
  'amount',
  'currency',
  'method',
  'order_id',
  'return_url',
  'metadata',
  'phone',
  'bank_id',
  'reason',
  'x',
];
const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.dictionary(fc.constantFrom(...knownKeys), fieldValue, { maxKeys: 6 }).map((o) => JSON.stringify(o)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom(
    '',
    '{',
    '[]',
    'null',
    '{"amount":1e309}',
    '{"amount":9007199254740993}',
    '\u0000',
    '{"__proto__":{}}',
  ),
);

// What each operation may answer, keyed by its name in the table of operations: its own statuses (spec section 4)
// and those of every request (sections 5, 7, 8: 400 for an invalid request or signature, 401, 403, 429). A refusal
// never takes a status the spec does not list. The event stream is left out: its answer never ends.
type Sent = Exclude<OperationName, 'events.stream'>;
// From the one table of test/support/operation-cases.ts: each operation's spec statuses, the refusals of every
// request, and what else it may answer.
const LISTED: Record<Sent | 'no operation', number[]> = {
  ...(Object.fromEntries(
    (Object.keys(OPERATION_CASES) as OperationName[])
      .filter((name): name is Sent => name !== 'events.stream')
      .map((name) => [name, answersOf(name)]),
  ) as Record<Sent, number[]>),
  // No operation of section 4 has this method: HTTP's own answer, with Allow (docs/spec-decisions.md).
  'no operation': [...EVERY_REQUEST, 405],
};

// Every row of the table (but the stream), its method and path from the row, any id where the path has one.
const endpoint = fc.oneof(
  ...(Object.keys(OPERATIONS) as OperationName[])
    .filter((name): name is Sent => name !== 'events.stream')
    .map((name) => {
      const { method, id } = OPERATIONS[name] as OperationRow;
      return id
        ? anyId().map((value) => ({ op: name, method, path: () => pathOf(name, value) }))
        : fc.constant({ op: name, method, path: () => pathOf(name) });
    }),
  fc.record({
    op: fc.constant('no operation' as const),
    method: fc.constantFrom('PUT', 'DELETE', 'PATCH'),
    path: fc.constant(() => pathOf('payments.create')),
  }),
);

const headerValue = fc.string({ maxLength: 100 }).map((s) => s.replace(/[^\x20-\x7e]/g, '').trim());
const headers = fc.record(
  {
    auth: fc.oneof(
      fc.constant('valid'),
      fc.constant('admin'),
      fc.constant('none'),
      headerValue.map((v) => `Bearer ${v}`),
      headerValue,
    ),
    idem: fc.option(headerValue, { nil: undefined }),
    contentType: fc.option(
      fc.oneof(
        fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-16'),
        headerValue,
      ),
      { nil: undefined },
    ),
    signature: fc.option(
      fc.oneof(
        fc.constant('valid'),
        headerValue,
        headerValue.map((v) => `sha256=${v}`),
      ),
      { nil: undefined },
    ),
  },
  { requiredKeys: ['auth'] },
);

describe('random requests to the public API', () => {
  it('never answer 5xx or a status the spec does not list for the operation, always carry the error body when refused, and change nothing when refused', async () => {
    await fc.assert(
      fc.asyncProperty(endpoint, body, headers, async (ep, raw, h) => {
        const before = await snapshot();
        const hs = new Headers();
        const token = { valid: env.ref.api_key, admin: env.ref.admin_token, none: undefined }[
          h.auth as 'valid'
        ];
        if (h.auth === 'valid' || h.auth === 'admin') hs.set('authorization', `Bearer ${token}`);
        else if (h.auth !== 'none') hs.set('authorization', h.auth);
        if (h.idem !== undefined) hs.set('idempotency-key', h.idem);
        if (h.contentType !== undefined) hs.set('content-type', h.contentType);
        if (h.signature === 'valid')
          hs.set('x-psp-signature', `sha256=${hmacSha256Hex(env.ref.signing_secret, raw)}`);
        else if (h.signature !== undefined) hs.set('x-psp-signature', h.signature);
        const hasBody = ep.method !== 'GET';
        const res = await env.ref.fetch(
          new Request(PUBLIC + ep.path(), {
            method: ep.method,
            headers: hs,
            body: hasBody ? raw : undefined,
          }),
        );
        const text = await res.text();
        expect(res.status, text).toBeLessThan(500);
        expect(LISTED[ep.op], `${ep.op}: ${res.status} ${text}`).toContain(res.status);
        if (res.status >= 400) {
          const parsed = responseSchemas(true).ErrorBody.safeParse(JSON.parse(text));
          expect(parsed.success, text).toBe(true);
          expect(await snapshot()).toBe(before);
        }
      }),
      { numRuns: 400 },
    );
    // CPU-bound (400 requests, a snapshot before each): 38 s beside two busy loops, past the default 30 s.
  }, 120_000);
});

describe('random requests to the control surface', () => {
  it('never answer 5xx and always carry the error body when refused', async () => {
    const routes = fc.oneof(
      fc.constantFrom(
        ['POST', '/_cabinet/merchants'],
        ['PATCH', `/_cabinet/merchants/${env.ref.merchant_id}`],
        ['PATCH', `/_cabinet/terminals/${env.ref.terminal_id}`],
        ['POST', `/_cabinet/terminals/${env.ref.terminal_id}/api-keys`],
        ['POST', `/_cabinet/shops/${env.ref.shop_id}/webhook-endpoints`],
        ['POST', '/_simulator/clock/advance'],
      ),
      fc.tuple(
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE'),
        fc.string({ maxLength: 40 }).map((s) => `/_cabinet/${encodeURIComponent(s)}`),
      ),
    );
    await fc.assert(
      fc.asyncProperty(routes, body, async ([method, path], raw) => {
        // Keep the merchant usable for the other property: never let a random PATCH block it or cut its limit.
        const before = await env.ref.control.getMerchant(env.ref.merchant_id);
        const hasBody = method !== 'GET';
        const res = await env.ref.fetch(
          new Request(`http://ref.test${path}`, {
            method,
            headers: {
              authorization: `Bearer ${env.ref.admin_token}`,
              'content-type': 'application/json',
            },
            body: hasBody ? raw : undefined,
          }),
        );
        const text = await res.text();
        expect(res.status, text).toBeLessThan(500);
        if (res.status >= 400)
          expect(responseSchemas(true).ErrorBody.safeParse(JSON.parse(text)).success, text).toBe(true);
        const { merchant_id: _m, name: _n, ...restore } = before;
        await env.ref.control.updateMerchant(env.ref.merchant_id, restore);
        await env.ref.control.updateTerminal(env.ref.terminal_id, { require_signature: false });
      }),
      { numRuns: 200 },
    );
  }, 120_000);
});
