import { afterEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../../src/reference/domain/errors.js';
import { parseFaultRules } from '../../../src/reference/faults/index.js';
import { createReference } from '../../../src/reference/service.js';
import { expectError, setup } from '../helpers.js';

// The control routes of the contract's "Faults": POST, GET, DELETE one, DELETE all; admin token only; a bad rule
// is a 400 that names the field and adds nothing.

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

describe('/_simulator/faults', () => {
  it('POST answers 201 with the rule, its id, hits 0 and the defaults filled in; GET lists them in order', async () => {
    env = setup();
    const a = await env.admin('/_simulator/faults', { body: { kind: 'error' } });
    expect(a.status, a.text).toBe(201);
    expect(a.body).toEqual({
      id: expect.stringMatching(/^flt_[a-z0-9]{16}$/),
      kind: 'error',
      phase: 'before',
      match: {},
      probability: 1,
      status: 503,
      code: 'service_unavailable',
      hits: 0,
    });
    const b = await env.admin('/_simulator/faults', {
      body: {
        kind: 'error',
        status: 429,
        match: { method: 'post', path: '/api/v1/public/payments' },
        count: 2,
      },
    });
    expect(b.body).toMatchObject({
      kind: 'error',
      status: 429,
      code: 'rate_limited',
      retry_after: 1,
      count: 2,
      match: { method: 'POST', path: '/api/v1/public/payments' },
    });
    const c = await env.admin('/_simulator/faults', { body: { kind: 'latency', phase: 'after' } });
    expect(c.body).toMatchObject({ kind: 'latency', phase: 'after', delay_ms: 1000 });
    const d = await env.admin('/_simulator/faults', { body: { kind: 'timeout', probability: 0.5 } });
    expect(d.body).toMatchObject({ kind: 'timeout', delay_ms: 60_000, probability: 0.5 });
    expect(d.body).not.toHaveProperty('status');

    const list = await env.admin('/_simulator/faults');
    expect(list.status).toBe(200);
    expect(list.body.items.map((r: { id: string }) => r.id)).toEqual([
      a.body.id,
      b.body.id,
      c.body.id,
      d.body.id,
    ]);
  });

  it('GET counts hits; DELETE /{id} removes one (204), DELETE removes all (204), an unknown id is 404', async () => {
    env = setup();
    const rule = (await env.admin('/_simulator/faults', { body: { kind: 'error' } })).body;
    const other = (await env.admin('/_simulator/faults', { body: { kind: 'reset', probability: 0 } })).body;
    expectError(await env.call('/banks/sbp'), 503, 'service_unavailable');
    expectError(await env.call('/banks/sbp'), 503);
    expect((await env.admin('/_simulator/faults')).body.items.map((r: { hits: number }) => r.hits)).toEqual([
      2, 0,
    ]);

    const del = await env.admin(`/_simulator/faults/${rule.id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await env.call('/banks/sbp')).status).toBe(200);
    expect((await env.admin('/_simulator/faults')).body.items).toEqual([{ ...other, hits: 0 }]);
    expectError(await env.admin(`/_simulator/faults/${rule.id}`, { method: 'DELETE' }), 404, 'not_found');

    await env.admin('/_simulator/faults', { body: { kind: 'error' } });
    const all = await env.admin('/_simulator/faults', { method: 'DELETE' });
    expect(all.status).toBe(204);
    expect((await env.admin('/_simulator/faults')).body).toEqual({ items: [] });
    expect((await env.call('/banks/sbp')).status).toBe(200);
  });

  it('takes the admin token only: an API key or no token is 401, and a wrong method is 405 with Allow', async () => {
    env = setup();
    expectError(await env.call('/_simulator/faults', { body: { kind: 'error' } }), 401, 'unauthorized');
    expectError(await env.call('/_simulator/faults', { key: null }), 401, 'unauthorized');
    expectError(await env.call('/_simulator/faults', { method: 'DELETE' }), 401, 'unauthorized');
    const put = await env.admin('/_simulator/faults', { method: 'PUT', body: {} });
    expectError(put, 405, 'method_not_allowed');
    expect(put.headers.get('allow')).toContain('POST');
    expect((await env.admin('/_simulator/faults')).body.items).toEqual([]);
  });

  const BAD: Array<[string, unknown, string]> = [
    ['no kind', {}, 'kind: '],
    ['an unknown kind', { kind: 'explode' }, 'kind: must be "error", "reset", "latency" or "timeout"'],
    [
      'a status outside 429 and 5xx',
      { kind: 'error', status: 404 },
      'status: must be 429 or from 500 to 599',
    ],
    ['a fractional status', { kind: 'error', status: 503.5 }, 'status: must be an integer'],
    ['a status on a latency', { kind: 'latency', status: 503 }, 'status: applies to kind "error" only'],
    ['a code on a reset', { kind: 'reset', code: 'boom' }, 'code: applies to kind "error" only'],
    ['a malformed code', { kind: 'error', code: 'Not A Code' }, 'code: must be a snake_case error code'],
    [
      'a delay on an error',
      { kind: 'error', delay_ms: 10 },
      'delay_ms: applies to kind "latency" and "timeout"',
    ],
    ['a negative delay', { kind: 'latency', delay_ms: -1 }, 'delay_ms: must not be negative'],
    ['a huge delay', { kind: 'timeout', delay_ms: 10_000_000 }, 'delay_ms: must be at most 600000'],
    ['a probability over 1', { kind: 'reset', probability: 1.5 }, 'probability: must be at most 1'],
    ['a string probability', { kind: 'reset', probability: '0.5' }, 'probability: must be a number'],
    ['a count of 0', { kind: 'reset', count: 0 }, 'count: must be at least 1'],
    [
      'a negative retry_after',
      { kind: 'error', status: 429, retry_after: -1 },
      'retry_after: must not be negative',
    ],
    ['a phase of its own', { kind: 'reset', phase: 'during' }, 'phase: must be "before" or "after"'],
    [
      'a control path',
      { kind: 'reset', match: { path: '/_simulator/clock' } },
      'match.path: must be a public API',
    ],
    [
      'another placeholder',
      { kind: 'reset', match: { path: '/api/v1/public/payments/{payment_id}' } },
      'match.path: must be a public API',
    ],
    // 1,000 rules of a 1 MiB path each held a gigabyte and were split on every public request.
    [
      'a path longer than any request path',
      { kind: 'reset', match: { path: `/api/v1/public${'/payments'.repeat(300)}` } },
      'match.path: must be at most 2048 characters',
    ],
    [
      'a method with a space',
      { kind: 'reset', match: { method: 'PO ST' } },
      'match.method: must be an HTTP method',
    ],
    [
      'an empty merchant',
      { kind: 'reset', match: { merchant_id: '' } },
      'match.merchant_id: must be a merchant id',
    ],
    [
      'unauthenticated that is no boolean',
      { kind: 'reset', match: { unauthenticated: 'yes' } },
      'match.unauthenticated: must be true or false',
    ],
    [
      'unauthenticated with a merchant',
      { kind: 'reset', match: { unauthenticated: true, merchant_id: 'm_1' } },
      'match.unauthenticated: cannot be combined with match.merchant_id',
    ],
    ['a match that is no object', { kind: 'reset', match: 'POST' }, 'match: must be an object'],
    ['an unknown match field', { kind: 'reset', match: { host: 'x' } }, 'match: unknown field "host"'],
    ['an unknown field', { kind: 'reset', ratio: 1 }, 'unknown field "ratio"'],
    ['an array', [{ kind: 'reset' }], 'must be a fault rule object'],
  ];

  it.each(BAD)('refuses %s with a 400 naming the field, and adds nothing', async (_, rule, message) => {
    env = setup();
    const r = await env.admin('/_simulator/faults', { body: rule });
    expectError(r, 400, 'bad_request');
    expect(r.body.error.message).toContain(message);
    expect((await env.admin('/_simulator/faults')).body.items).toEqual([]);
    await expect(env.ref.control.addFault(rule as never)).rejects.toThrow(message);
  });

  it('refuses a body that is not JSON, and a DELETE with a body', async () => {
    env = setup();
    expectError(
      await env.admin('/_simulator/faults', { raw: '{"kind":', method: 'POST' }),
      400,
      'bad_request',
    );
    const rule = await env.ref.control.addFault({ kind: 'reset' });
    expectError(await env.admin(`/_simulator/faults/${rule.id}`, { method: 'DELETE', body: { id: 1 } }), 400);
    expect((await env.ref.control.listFaults()).items).toHaveLength(1);
  });
});

describe('typed methods and options', () => {
  it('ref.simulator.addFault/listFaults/removeFault/clearFaults do what the routes do', async () => {
    env = setup();
    const rule = await env.ref.control.addFault({ kind: 'error', status: 502 });
    expect(rule).toMatchObject({ kind: 'error', status: 502, code: 'service_unavailable', hits: 0 });
    expectError(await env.call('/banks/sbp'), 502, 'service_unavailable');
    // What the caller holds is a copy: the listing counts, the returned rule does not change under it.
    expect(rule.hits).toBe(0);
    expect((await env.ref.control.listFaults()).items[0]!.hits).toBe(1);
    expect((await env.admin('/_simulator/faults')).body.items[0]).toEqual({ ...rule, hits: 1 });
    await env.ref.control.removeFault(rule.id);
    await expect(env.ref.control.removeFault(rule.id)).rejects.toThrow(DomainError);
    await env.ref.control.addFault({ kind: 'reset' });
    await env.ref.control.clearFaults();
    expect(await env.ref.control.listFaults()).toEqual({ items: [] });
  });

  it('createReference({ faults }) loads the rules at start; a bad rule or seed throws naming it', async () => {
    const ref = createReference({
      faults: [{ kind: 'error', status: 500, code: 'internal_error' }],
      seed: 3,
    });
    try {
      expect((await ref.control.listFaults()).items).toMatchObject([{ kind: 'error', status: 500, hits: 0 }]);
      const res = await ref.fetch(
        new Request('http://ref.test/api/v1/public/banks/sbp', {
          headers: { authorization: `Bearer ${ref.api_key}` },
        }),
      );
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ error: { code: 'internal_error' } });
    } finally {
      await ref.close();
    }
    expect(() =>
      createReference({ faults: [{ kind: 'reset' }, { kind: 'latency', delay_ms: 1.5 }] }),
    ).toThrow(new TypeError('[1].delay_ms: must be an integer'));
    expect(() => createReference({ faults: [null as never] })).toThrow(/\[0\]: must be a fault rule object/);
    expect(() => createReference({ faults: {} as never })).toThrow(TypeError);
    expect(() => createReference({ seed: 1.5 })).toThrow(/seed must be an integer/);
  });

  // 1,000 rules made every public request 4-5 times slower: the bound is also what the rules may cost a request.
  it('holds at most 100 rules (409 too_many_rules); a start list or a snapshot with more is refused whole', async () => {
    env = setup();
    for (let i = 0; i < 100; i++) await env.ref.control.addFault({ kind: 'reset', probability: 0 });
    await expect(env.ref.control.addFault({ kind: 'reset' })).rejects.toThrow(
      expect.objectContaining({ status: 409, code: 'too_many_rules' }),
    );
    expectError(await env.admin('/_simulator/faults', { body: { kind: 'reset' } }), 409, 'too_many_rules');
    expect((await env.ref.control.listFaults()).items).toHaveLength(100);
    const many = Array.from({ length: 101 }, () => ({ kind: 'reset' as const }));
    expect(() => parseFaultRules(many)).toThrow(new TypeError('must hold at most 100 fault rules'));
    expect(() => createReference({ faults: many })).toThrow('must hold at most 100 fault rules');
    const snapshot = (await env.admin('/_simulator/snapshot')).body;
    const rules = Array.from({ length: 101 }, (_, i) => ({ id: `flt_${i}`, kind: 'reset', hits: 0 }));
    const restored = await env.admin('/_simulator/restore', { body: { ...snapshot, fault_rules: rules } });
    expectError(restored, 400, 'bad_request');
    expect((await env.ref.control.listFaults()).items).toHaveLength(100);
  });
});
