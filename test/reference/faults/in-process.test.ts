import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PspClient } from '../../../src/index.js';
import { ConnectionReset, createReference } from '../../../src/reference/index.js';
import { createReferenceHandlers } from '../../../src/reference/msw.js';

// Faults without sockets: under msw a reset is msw's network error (the code under test's fetch rejects with a
// TypeError), and a PspClient that calls `reference.fetch` directly sees the same rejection.

const BASE = 'https://psp.test/v1-prefix';
const reference = createReference({ clock: 'manual', seed: 11 });
const server = setupServer(...createReferenceHandlers(reference, { baseUrl: BASE }));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => reference.control.clearFaults());
afterAll(async () => {
  server.close();
  await reference.close();
});

const headers = { authorization: `Bearer ${reference.api_key}`, 'content-type': 'application/json' };

describe('under msw', () => {
  it('a reset rejects the fetch with a TypeError; an after reset still commits', async () => {
    await reference.control.addFault({ kind: 'reset', phase: 'after' });
    const before = reference.stats().payments;
    const err = await fetch(`${BASE}/api/v1/public/payments`, {
      method: 'POST',
      headers,
      body: '{"amount":5}',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect(reference.stats().payments).toBe(before + 1);
  });

  it('an error rule answers through msw; the control routes stay reachable', async () => {
    await reference.control.addFault({ kind: 'error', status: 503 });
    const res = await fetch(`${BASE}/api/v1/public/banks/sbp`, { headers });
    expect(res.status).toBe(503);
    const list = await fetch(`${BASE}/_simulator/faults`, {
      headers: { authorization: `Bearer ${reference.admin_token}` },
    });
    expect(((await list.json()) as { items: Array<{ hits: number }> }).items[0]!.hits).toBe(1);
  });

  it('PspClient through msw: 100 creates under an after reset at 0.3 make exactly 100 payments', {
    timeout: 120_000,
  }, async () => {
    await reference.control.addFault({
      kind: 'reset',
      phase: 'after',
      probability: 0.3,
      match: { method: 'POST' },
    });
    const psp = new PspClient({
      apiKey: reference.api_key,
      baseUrl: BASE,
      maxRetries: 10,
      maxRetryDelay: 0,
    });
    const before = reference.stats().payments;
    const ids = new Set<string>();
    for (let i = 0; i < 100; i++) ids.add((await psp.payments.create({ amount: 100 + i })).payment.id);
    expect(ids.size).toBe(100);
    expect(reference.stats().payments - before).toBe(100);
    expect((await reference.control.listFaults()).items[0]!.hits).toBeGreaterThan(20);
  });
});

describe('PspClient over reference.fetch', () => {
  it('retries a keyed create through resets and ends with one payment', async () => {
    const ref = createReference({ seed: 5, faults: [{ kind: 'reset', phase: 'after', count: 3 }] });
    try {
      const psp = new PspClient({
        apiKey: ref.api_key,
        baseUrl: 'http://reference.test',
        maxRetries: 5,
        maxRetryDelay: 0,
        fetch: (input, init) => ref.fetch(new Request(input, init)),
      });
      const { payment } = await psp.payments.create({ amount: 700 }, { idempotencyKey: 'order-7' });
      expect(ref.stats().payments).toBe(1);
      expect((await ref.control.listFaults()).items[0]!.hits).toBe(3);
      expect((await psp.payments.get(payment.id)).amount).toBe(700);
    } finally {
      await ref.close();
    }
  });
});

describe('ConnectionReset', () => {
  it('is recognised across copies of the package (the CommonJS build bundles the msw entry apart)', () => {
    const foreign = Object.defineProperty(
      new TypeError('x'),
      Symbol.for('psp-sdk.reference.connection-reset'),
      {
        value: true,
      },
    );
    expect(foreign instanceof ConnectionReset).toBe(true);
    expect(new TypeError('fetch failed') instanceof ConnectionReset).toBe(false);
    expect((null as unknown as object) instanceof ConnectionReset).toBe(false);
  });
});
