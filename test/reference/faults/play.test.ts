import { afterEach, describe, expect, it, vi } from 'vitest';
import { Accounts } from '../../../src/reference/domain/accounts.js';
import { ConnectionReset } from '../../../src/reference/faults/index.js';
import type { FaultRuleInput } from '../../../src/reference/faults/index.js';
import { expectError, setup } from '../helpers.js';

// What each kind and phase does to a public request, in-process (Reference.fetch): `before` leaves nothing
// processed, `after` commits then breaks the answer. Waits are ended by the request's signal or by close(), or
// are a few real milliseconds whose length is never asserted.

let env: ReturnType<typeof setup>;
afterEach(() => env?.ref.close());

const PAYMENT = { amount: 1000 };
const hits = async () => (await env.ref.control.listFaults()).items.map((r) => r.hits);

/** Waits (bounded by time, never by a count of turns) until `done()` holds. */
const until = (done: () => boolean | Promise<boolean>) =>
  vi.waitFor(async () => expect(await done()).toBe(true), { timeout: 20_000, interval: 2 });

async function start(rule: FaultRuleInput) {
  env = setup();
  await env.ref.control.addFault(rule);
}

describe('kinds and phases', () => {
  it('error before: the spec error body at the status, and nothing processed', async () => {
    await start({ kind: 'error', match: { path: '/api/v1/public/payments' } });
    const r = await env.call('/payments', { body: PAYMENT, headers: { 'idempotency-key': 'k1' } });
    expectError(r, 503, 'service_unavailable');
    expect(r.body.error.message).toMatch(/fault rule flt_/);
    expect(env.ref.stats()).toMatchObject({ payments: 0, idempotency_keys: 0 });
  });

  it('error after: the payment is created and its key stored, the answer is the error, and a retry replays', async () => {
    await start({ kind: 'error', phase: 'after', status: 500, code: 'internal_error', count: 1 });
    const r = await env.call('/payments', { body: PAYMENT, headers: { 'idempotency-key': 'k1' } });
    expectError(r, 500, 'internal_error');
    expect(env.ref.stats()).toMatchObject({ payments: 1, idempotency_keys: 1 });
    const again = await env.call('/payments', { body: PAYMENT, headers: { 'idempotency-key': 'k1' } });
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(env.ref.stats().payments).toBe(1);
  });

  // The code rule (snake_case) fits a key or an admin token: the code went out, and into logs, as written.
  // The code rule (snake_case) fits a key or an admin token: the code went out, and into logs, as written.
  it.each([
    ['sk_test_abcdef_s3cretpart01', 'sk_test_***'],
    ['adm_k4x9q2m7w1z8r5t3', 'adm_***'],
  ])(
    'error: a code shaped like a secret (%s) is redacted in the answer, as the message is',
    async (code, shown) => {
      await start({ kind: 'error', code });
      const r = await env.call('/banks/sbp');
      expectError(r, 503, shown);
      expect(r.text).not.toContain(code.slice(-10));
    },
  );

  it('an after error carries none of the real answer headers (no Idempotent-Replayed on an error)', async () => {
    env = setup();
    await env.call('/payments', { body: PAYMENT, headers: { 'idempotency-key': 'k1' } });
    await env.ref.control.addFault({ kind: 'error', phase: 'after', status: 429, retry_after: 7 });
    const r = await env.call('/payments', { body: PAYMENT, headers: { 'idempotency-key': 'k1' } });
    expectError(r, 429, 'rate_limited');
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.headers.get('idempotent-replayed')).toBeNull();
  });

  it('a 429 error carries Retry-After (default 1); a 5xx carries it only when given', async () => {
    await start({ kind: 'error', status: 429, count: 1 });
    await env.ref.control.addFault({ kind: 'error', status: 503, count: 1 });
    await env.ref.control.addFault({ kind: 'error', status: 503, retry_after: 2, count: 1 });
    const a = await env.call('/banks/sbp');
    expectError(a, 429, 'rate_limited');
    expect(a.headers.get('retry-after')).toBe('1');
    expect((await env.call('/banks/sbp')).headers.get('retry-after')).toBeNull();
    expect((await env.call('/banks/sbp')).headers.get('retry-after')).toBe('2');
  });

  it('reset before: the fetch rejects with a TypeError, as on a dropped connection, and nothing is processed', async () => {
    const lines: string[] = [];
    env = setup({ logger: (line) => lines.push(line), faults: [{ kind: 'reset' }] });
    const err = await env.call('/payments', { body: PAYMENT }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(err).toBeInstanceOf(ConnectionReset);
    expect((err as Error).message).toMatch(/^fetch failed: the connection was reset/);
    expect(env.ref.stats().payments).toBe(0);
    expect(lines).toEqual(['POST /api/v1/public/payments reset']);
  });

  it('reset after: the payment and its refund are committed, the answers never arrive', async () => {
    env = setup();
    const { payment } = await env.createPayment();
    await env.ref.control.succeedPayment(payment.id);
    await env.ref.control.addFault({
      kind: 'reset',
      phase: 'after',
      match: { method: 'POST', path: '/api/v1/public/payments/{id}/refund' },
    });
    const refund = env.call(`/payments/${payment.id}/refund`, {
      body: { amount: 400 },
      headers: { 'idempotency-key': 'r1' },
    });
    await expect(refund).rejects.toBeInstanceOf(ConnectionReset);
    expect(env.ref.stats().refunds).toBe(1);
    expect((await env.call(`/payments/${payment.id}`)).body.amount_refunded).toBe(400);
  });

  it('latency: the real answer comes after a real-time delay, whatever the manual service clock does', async () => {
    await start({ kind: 'latency', delay_ms: 5 });
    await env.ref.control.addFault({ kind: 'latency', delay_ms: 5, phase: 'after' });
    const r = await env.call('/payments', { body: PAYMENT });
    expect(r.status).toBe(201);
    expect((await env.ref.control.getClock()).mode).toBe('manual');
    expect(await hits()).toEqual([1, 0]);
  });

  it('latency before: nothing is processed during the delay, and a client that gives up is never processed', async () => {
    await start({ kind: 'latency', delay_ms: 600_000 });
    const client = new AbortController();
    const res = env.ref.fetch(
      new Request('http://ref.test/api/v1/public/payments', {
        method: 'POST',
        headers: { authorization: `Bearer ${env.ref.api_key}`, 'content-type': 'application/json' },
        body: JSON.stringify(PAYMENT),
        signal: client.signal,
      }),
    );
    await until(async () => (await hits())[0] === 1);
    expect(env.ref.stats().payments).toBe(0);
    client.abort();
    await expect(res).rejects.toBeInstanceOf(ConnectionReset);
    expect(env.ref.stats().payments).toBe(0);
  });

  it('latency after: the payment is committed while its answer waits', async () => {
    await start({ kind: 'latency', delay_ms: 600_000, phase: 'after' });
    const res = env.call('/payments', { body: PAYMENT });
    await until(() => env.ref.stats().payments === 1);
    // close() ends every fault wait: a long delay never holds a test run or a shutdown.
    await env.ref.close();
    await expect(res).rejects.toBeInstanceOf(ConnectionReset);
  });

  it('timeout: nothing for delay_ms, then a reset; before processes nothing, after commits', async () => {
    await start({ kind: 'timeout', delay_ms: 5, count: 1 });
    await env.ref.control.addFault({ kind: 'timeout', delay_ms: 5, phase: 'after', count: 1 });
    await expect(env.call('/payments', { body: PAYMENT })).rejects.toBeInstanceOf(ConnectionReset);
    expect(env.ref.stats().payments).toBe(0);
    await expect(env.call('/payments', { body: PAYMENT })).rejects.toBeInstanceOf(ConnectionReset);
    expect(env.ref.stats().payments).toBe(1);
    expect(await hits()).toEqual([1, 1]);
  });

  it('timeout defaults to 60 s of silence: the answer is still pending when the request is cut', async () => {
    await start({ kind: 'timeout' });
    const res = env.call('/banks/sbp');
    await until(async () => (await hits())[0] === 1);
    await env.ref.close();
    await expect(res).rejects.toBeInstanceOf(ConnectionReset);
  });

  it('after on the event stream: the opened stream is closed again, the answer is the fault', async () => {
    await start({ kind: 'error', phase: 'after', match: { path: '/api/v1/public/events' } });
    expectError(await env.call('/events'), 503);
    await env.ref.control.clearFaults();
    // The faulted stream is gone from the hub: a new one opens normally and its first line is `: connected`.
    const client = new AbortController();
    const res = await env.ref.fetch(
      new Request('http://ref.test/api/v1/public/events', {
        headers: { authorization: `Bearer ${env.ref.api_key}` },
        signal: client.signal,
      }),
    );
    expect(res.status).toBe(200);
    client.abort();
    await res.body?.cancel();
  });
});

describe('matching', () => {
  it('method and path: exact, or with {id} standing for one segment', async () => {
    env = setup();
    const { payment } = await env.createPayment();
    await env.ref.control.succeedPayment(payment.id);
    await env.ref.control.addFault({
      kind: 'error',
      match: { method: 'GET', path: '/api/v1/public/payments/{id}' },
    });
    await env.ref.control.addFault({
      kind: 'error',
      status: 502,
      match: { path: '/api/v1/public/payments/{id}/refund' },
    });
    expectError(await env.call(`/payments/${payment.id}`), 503);
    expectError(await env.call('/payments/anything-at-all'), 503);
    expect((await env.call('/banks/sbp')).status).toBe(200);
    expect((await env.call('/payments', { body: PAYMENT })).status).toBe(201);
    expectError(await env.call(`/payments/${payment.id}/refund`, { body: { amount: 1 } }), 502);
    // The cancel path is not the refund path; the payment is succeeded, so cancel answers the domain's 409.
    expectError(await env.call(`/payments/${payment.id}/cancel`, { method: 'POST' }), 409);
    expect(await hits()).toEqual([2, 1]);
  });

  it('merchant_id: only the named merchant; a request with no valid key matches no merchant rule', async () => {
    env = setup();
    const other = await env.ref.control.createMerchant({ name: 'Other' });
    await env.ref.control.addFault({ kind: 'error', match: { merchant_id: env.ref.merchant_id } });
    expectError(await env.call('/banks/sbp'), 503);
    expect((await env.call('/banks/sbp', { key: other.api_key })).status).toBe(200);
    expectError(await env.call('/banks/sbp', { key: 'sk_test_abcdef_nope' }), 401, 'unauthorized');
    expectError(await env.call('/banks/sbp', { key: null }), 401, 'unauthorized');
    expect(await hits()).toEqual([1]);
  });

  it('a before fault is in front of section 5: no rate-limit slot is taken, and the allow-list is not asked', async () => {
    env = setup();
    await env.ref.control.updateMerchant(env.ref.merchant_id, {
      rate_limit: { limit: 2, window_seconds: 60 },
    });
    const rule = await env.ref.control.addFault({
      kind: 'error',
      match: { merchant_id: env.ref.merchant_id },
    });
    for (let i = 0; i < 5; i++) expectError(await env.call('/banks/sbp'), 503);
    await env.ref.control.removeFault(rule.id);
    expect((await env.call('/banks/sbp')).status).toBe(200);
    expect((await env.call('/banks/sbp')).status).toBe(200);
    expectError(await env.call('/banks/sbp'), 429, 'rate_limited');

    await env.ref.control.addFault({ kind: 'error', status: 502, match: { unauthenticated: true } });
    expectError(await env.call('/banks/sbp', { key: null }), 502);
  });

  // A rule without merchant_id was used up by keyless requests (a probe, a health check) before the merchant's
  // own call came.
  it('a rule matches only requests with a valid key; match.unauthenticated lets keyless ones match too', async () => {
    await start({ kind: 'error', status: 502, count: 1 });
    for (const key of [null, 'sk_test_abcdef_nope'])
      expectError(await env.call('/banks/sbp', { key }), 401, 'unauthorized');
    expect(await hits()).toEqual([0]);
    expectError(await env.call('/banks/sbp'), 502);
    expect(await hits()).toEqual([1]);

    await env.ref.control.clearFaults();
    await env.ref.control.addFault({
      kind: 'error',
      status: 503,
      match: { unauthenticated: true },
      count: 2,
    });
    expectError(await env.call('/banks/sbp', { key: null }), 503);
    expectError(await env.call('/banks/sbp'), 503);
    expect(await hits()).toEqual([2]);
  });

  it("looks a request's key up once, however many rules name a merchant", async () => {
    env = setup();
    for (let i = 0; i < 100; i++)
      await env.ref.control.addFault({ kind: 'error', match: { merchant_id: `m_other_${i}` } });
    const authenticate = vi.spyOn(Accounts.prototype, 'authenticate');
    try {
      expect((await env.call('/banks/sbp')).status).toBe(200);
      // The fault middleware's lookup, then section 5's own.
      expect(authenticate).toHaveBeenCalledTimes(2);
    } finally {
      authenticate.mockRestore();
    }
  });

  it('rules apply in the order added: the first that matches and fires', async () => {
    await start({ kind: 'error', status: 500, probability: 0 });
    await env.ref.control.addFault({ kind: 'error', status: 501, match: { method: 'POST' } });
    await env.ref.control.addFault({ kind: 'error', status: 502 });
    await env.ref.control.addFault({ kind: 'error', status: 503 });
    expectError(await env.call('/banks/sbp'), 502);
    expectError(await env.call('/payments', { body: PAYMENT }), 501);
    expect(await hits()).toEqual([0, 1, 1, 0]);
  });

  it('count caps the fires; the rule stays listed with hits equal to count', async () => {
    await start({ kind: 'error', count: 2 });
    expectError(await env.call('/banks/sbp'), 503);
    expectError(await env.call('/banks/sbp'), 503);
    expect((await env.call('/banks/sbp')).status).toBe(200);
    expect((await env.ref.control.listFaults()).items).toMatchObject([{ count: 2, hits: 2 }]);
  });

  it('never plays on /_cabinet, /_simulator, /pay or /openapi.json, only on /api/v1/public', async () => {
    env = setup();
    const { payment } = await env.createPayment();
    await env.ref.control.addFault({ kind: 'reset' });
    expect((await env.admin('/_simulator/clock')).status).toBe(200);
    expect((await env.admin(`/_cabinet/merchants/${env.ref.merchant_id}`)).status).toBe(200);
    expect((await env.admin(`/_simulator/payments/${payment.id}/process`, { method: 'POST' })).status).toBe(
      200,
    );
    expect((await env.call(`/pay/${payment.id}`, { key: null })).status).toBe(200);
    expect([200, 404]).toContain((await env.call('http://ref.test/openapi.json', { key: null })).status);
    expect((await env.admin('/_simulator/faults')).body.items[0].hits).toBe(0);
    await expect(env.call('/banks/sbp')).rejects.toBeInstanceOf(ConnectionReset);
  });
});

describe('probability', () => {
  async function pattern(seed: number, n = 60): Promise<string> {
    env = setup({ seed, faults: [{ kind: 'error', probability: 0.5 }] });
    let out = '';
    for (let i = 0; i < n; i++) out += (await env.call('/banks/sbp')).status === 503 ? 'x' : '.';
    await env.ref.close();
    return out;
  }

  it('the same seed gives the same faults, request for request; another seed others', async () => {
    const a = await pattern(42);
    expect(await pattern(42)).toBe(a);
    expect(await pattern(43)).not.toBe(a);
    const fired = a.split('').filter((c) => c === 'x').length;
    // Both outcomes occur: a draw, not a constant.
    expect(fired).toBeGreaterThan(10);
    expect(fired).toBeLessThan(50);
  });

  it('hits count the fires only; a rule of probability 1 or 0 takes no draw, so it shifts no other rule', async () => {
    const alone = await pattern(7);
    env = setup({
      seed: 7,
      faults: [
        { kind: 'error', status: 500, probability: 0 },
        { kind: 'error', status: 502, probability: 1, match: { method: 'POST' } },
        { kind: 'error', probability: 0.5 },
      ],
    });
    let out = '';
    for (let i = 0; i < 60; i++) {
      await env.call('/payments', { body: PAYMENT }).then((r) => expect(r.status).toBe(502));
      out += (await env.call('/banks/sbp')).status === 503 ? 'x' : '.';
    }
    expect(out).toBe(alone);
    expect(await hits()).toEqual([0, 60, out.split('x').length - 1]);
  });
});
