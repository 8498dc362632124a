import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PspClient, PspError } from '../../src/index.js';
import { type RunningReference, startReference } from '../../src/reference/index.js';
import { type FaultProxy, startFaultProxy } from './fault-proxy.js';

/**
 * The money test: through a proxy that breaks 30 % of requests (resets before and after the service commits,
 * hangs past the client's timeout, 502, 503, 429), every logical call ends with exactly one object. A caller whose
 * call failed retries it with the idempotency key the error carries, as docs/idempotency-and-retries.md says.
 */

let ref: RunningReference;
let proxy: FaultProxy;
let client: PspClient;

const admin = (path: string, init: RequestInit = {}) =>
  fetch(`${ref.base_url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${ref.admin_token}`, 'content-type': 'application/json' },
  });

beforeAll(async () => {
  ref = await startReference({ port: 0 });
  // The faults test is about duplicates, not the merchant rate limit: lift it so only injected 429s occur.
  const res = await admin(`/_cabinet/merchants/${ref.merchant_id}`, {
    method: 'PATCH',
    body: JSON.stringify({ rate_limit: { limit: 1_000_000, window_seconds: 1 } }),
  });
  expect(res.status).toBe(200);
  proxy = await startFaultProxy({ upstream: ref.base_url, rate: 0.3, seed: 20261121, retryAfter: 1 });
  // maxRetryDelay: the test is about duplicates, not about how long the client waits between attempts, so the
  // injected 429's `Retry-After: 1` and the backoff are clamped to 20 ms (the Retry-After path still runs; only
  // the sleep is shorter). The timeout stays at 3 s: a `hang` fault costs one timeout, and a shorter one times out
  // genuine answers on a loaded machine (1 s gave 538 timeouts at load 10).
  client = new PspClient({
    apiKey: ref.api_key,
    baseUrl: proxy.url,
    maxRetries: 3,
    timeout: 3_000,
    maxRetryDelay: 20,
  });
});

afterAll(async () => {
  await proxy?.close();
  await ref?.close();
});

/**
 * Logical calls in flight at once through the proxy. A `hang` fault costs one client timeout (3 s) of waiting, so
 * fewer in flight make the file longer idle (about 25 s of it is waiting), but each answer waits behind fewer.
 */
const IN_FLIGHT = 10;

/** Runs `n` logical calls, at most `concurrency` at a time. */
async function pool<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

interface Outcome<T> {
  data: T;
  key: string;
  callerRetries: number;
}

/** One logical call: on a failure, retry with the key the error carries, never with a fresh one. */
async function logical<T>(
  call: (key: string | undefined) => Promise<{ data: T; idempotencyKey: string | undefined }>,
  typedFailures: string[],
): Promise<Outcome<T>> {
  let key: string | undefined;
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      const r = await call(key);
      expect(r.idempotencyKey).toBeDefined();
      if (key) expect(r.idempotencyKey).toBe(key);
      return { data: r.data, key: r.idempotencyKey!, callerRetries: attempt };
    } catch (err) {
      expect(err).toBeInstanceOf(PspError);
      const k = (err as { idempotencyKey?: string }).idempotencyKey;
      expect(k, `${(err as Error).name} must carry the idempotency key`).toBeTypeOf('string');
      if (key) expect(k).toBe(key);
      key = k;
      typedFailures.push((err as Error).name);
    }
  }
  throw new Error('a logical call did not complete in 20 caller retries');
}

/** The ids the service created (201) for one route, as seen between the proxy and the service. */
function created(path: RegExp, idOf: (body: any) => string): string[] {
  return proxy.exchanges
    .filter((e) => e.method === 'POST' && path.test(e.path) && e.upstreamStatus === 201)
    .map((e) => idOf(JSON.parse(e.upstreamBody!)));
}

function tally(names: string[]): Record<string, number> {
  return names.reduce<Record<string, number>>((acc, n) => {
    acc[n] = (acc[n] ?? 0) + 1;
    return acc;
  }, {});
}

describe('at 30 % faults, every logical call makes exactly one object', () => {
  it('1,000 payments.create calls make 1,000 payments', async () => {
    const failures: string[] = [];
    // IN_FLIGHT at a time, like the two tests below: every call is in one process with the proxy and the service,
    // so the calls in flight queue behind each other for its CPU, and an answer queued past the 3 s timeout is one
    // more retry (a spiral that ran out the 180 s: 100 in flight at load 10, 30 beside two busy loops). The calls
    // still overlap; what is asserted is unchanged.
    const outcomes = await pool(1_000, IN_FLIGHT, (i) =>
      logical(
        (key) =>
          client.payments
            .create(
              { amount: 10_000 + i * 1_000, order_id: `order-${i}` },
              key ? { idempotencyKey: key } : {},
            )
            .withResponse(),
        failures,
      ),
    );
    const ids = outcomes.map((o) => o.data.payment.id);
    const made = created(/^\/api\/v1\/public\/payments$/, (b) => b.payment.id);
    const duplicates = made.length - new Set(made).size;
    const lost = ids.filter((id) => !made.includes(id)).length;
    console.log(
      `[faults] payments: calls=1000 created=${made.length} distinct=${new Set(ids).size} duplicates=${duplicates} lost=${lost}` +
        ` caller-retries=${outcomes.reduce((s, o) => s + o.callerRetries, 0)} typed-failures=${JSON.stringify(tally(failures))}` +
        ` proxy=${JSON.stringify(proxy.counts())}`,
    );
    expect(new Set(ids).size).toBe(1_000);
    expect(made.length).toBe(1_000);
    expect(new Set(made)).toEqual(new Set(ids));
    outcomes.forEach((o, i) => {
      expect(o.data.payment.order_id).toBe(`order-${i}`);
    });
    expect(proxy.counts().reset_after).toBeGreaterThan(0);
  }, 180_000);

  it('300 payouts.create calls make 300 payouts', async () => {
    const failures: string[] = [];
    const outcomes = await pool(300, IN_FLIGHT, (i) =>
      logical(
        (key) =>
          client.payouts
            .create(
              {
                amount: 5_000 + i * 1_000,
                phone: `+7900${String(i).padStart(7, '0')}`,
                bank_id: '100000000111',
              },
              key ? { idempotencyKey: key } : {},
            )
            .withResponse(),
        failures,
      ),
    );
    const ids = outcomes.map((o) => o.data.payout.id);
    const made = created(/^\/api\/v1\/public\/payouts$/, (b) => b.payout.id);
    console.log(
      `[faults] payouts: calls=300 created=${made.length} distinct=${new Set(ids).size} duplicates=${made.length - new Set(made).size}` +
        ` typed-failures=${JSON.stringify(tally(failures))}`,
    );
    expect(new Set(ids).size).toBe(300);
    expect(made.length).toBe(300);
    expect(new Set(made)).toEqual(new Set(ids));
  }, 120_000);

  it('300 refunds make one refund each, and no payment is refunded beyond its amount', async () => {
    // Payments made directly (no proxy), then paid through the simulator, then refunded through the faults.
    const direct = new PspClient({ apiKey: ref.api_key, baseUrl: ref.base_url });
    const payments = await pool(300, IN_FLIGHT, async (i) => {
      const { payment } = await direct.payments.create({ amount: 20_000 + i * 1_000 });
      const res = await admin(`/_simulator/payments/${payment.id}/succeed`, { method: 'POST' });
      expect(res.status).toBe(200);
      return payment;
    });
    const failures: string[] = [];
    const outcomes = await pool(300, IN_FLIGHT, (i) =>
      logical(
        (key) =>
          client.payments
            .refund(
              payments[i]!.id,
              { amount: 5_000, reason: 'fault test' },
              key ? { idempotencyKey: key } : {},
            )
            .withResponse(),
        failures,
      ),
    );
    const made = created(/\/refund$/, (b) => b.id);
    console.log(
      `[faults] refunds: calls=300 created=${made.length} distinct=${new Set(outcomes.map((o) => o.data.id)).size}` +
        ` duplicates=${made.length - new Set(made).size} typed-failures=${JSON.stringify(tally(failures))}`,
    );
    expect(made.length).toBe(300);
    const after = await pool(300, IN_FLIGHT, (i) => direct.payments.get(payments[i]!.id));
    for (const p of after) {
      expect(p.refunds).toHaveLength(1);
      expect(p.amount_refunded).toBe(5_000);
    }
  }, 120_000);
});
